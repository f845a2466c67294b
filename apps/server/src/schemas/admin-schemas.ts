import { z } from "@hono/zod-openapi";

/** `POST /v1/admin/tenants`. */
export const createTenantBodySchema = z.strictObject({ name: z.string().min(1).max(200) });

/** A tenant. */
export const tenantResponseSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
});

/** `GET /v1/admin/tenants`. */
export const tenantListSchema = z.object({ tenants: z.array(tenantResponseSchema) });

/** The `:tenantId` path. */
export const tenantParamsSchema = z.object({
  tenantId: z
    .string()
    .regex(/^t_[a-f0-9]{16}$/, "a tenant id")
    .openapi({ param: { name: "tenantId", in: "path" } }),
});

/** `POST /v1/admin/tenants/:tenantId/keys`. */
export const createKeyBodySchema = z.strictObject({ label: z.string().min(1).max(200).optional() });

/** An API key as listed (never its value). */
export const keyInfoSchema = z.object({
  id: z.string(),
  tenantId: z.string(),
  label: z.string().optional(),
  createdAt: z.string(),
  revokedAt: z.string().optional(),
});

/** A new key: the only response that carries the key itself. */
export const createdKeySchema = keyInfoSchema.extend({ key: z.string() });

/** `GET /v1/admin/tenants/:tenantId/keys`. */
export const keyListSchema = z.object({ keys: z.array(keyInfoSchema) });

/** The `:tenantId/:keyId` path. */
export const keyParamsSchema = tenantParamsSchema.extend({
  keyId: z
    .string()
    .regex(/^k_[a-f0-9]{16}$/, "a key id")
    .openapi({ param: { name: "keyId", in: "path" } }),
});
