import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppDeps } from "../app-deps.js";
import type { ApiKeyRecord } from "../auth/api-key-schema.js";
import { ApiError } from "../errors/index.js";
import type { ServerEnv } from "../http/server-env.js";
import type { StreamCounter } from "../http/stream-counter.js";
import {
  createdKeySchema,
  createKeyBodySchema,
  createTenantBodySchema,
  keyInfoSchema,
  keyListSchema,
  keyParamsSchema,
  tenantListSchema,
  tenantParamsSchema,
  tenantResponseSchema,
} from "../schemas/admin-schemas.js";
import { errorResponses, jsonBody, jsonResponse } from "../schemas/common-schemas.js";
import { validationHook } from "./validation-hook.js";

const tags = ["admin"];

const createTenant = createRoute({
  method: "post",
  path: "/tenants",
  tags,
  summary: "Create a tenant (admin key)",
  request: { body: jsonBody(createTenantBodySchema) },
  responses: {
    201: jsonResponse(tenantResponseSchema, "The tenant"),
    ...errorResponses(400, 401, 415),
  },
});

const listTenants = createRoute({
  method: "get",
  path: "/tenants",
  tags,
  summary: "List tenants (admin key)",
  responses: { 200: jsonResponse(tenantListSchema, "Tenants"), ...errorResponses(401) },
});

const createKey = createRoute({
  method: "post",
  path: "/tenants/{tenantId}/keys",
  tags,
  summary: "Create an API key for a tenant; the key is shown once (admin key)",
  request: {
    params: tenantParamsSchema,
    body: { ...jsonBody(createKeyBodySchema), required: false },
  },
  responses: {
    201: jsonResponse(createdKeySchema, "The key"),
    ...errorResponses(400, 401, 404, 415),
  },
});

const listKeys = createRoute({
  method: "get",
  path: "/tenants/{tenantId}/keys",
  tags,
  summary: "List a tenant's keys, without their values (admin key)",
  request: { params: tenantParamsSchema },
  responses: { 200: jsonResponse(keyListSchema, "Keys"), ...errorResponses(400, 401, 404) },
});

const revokeKey = createRoute({
  method: "delete",
  path: "/tenants/{tenantId}/keys/{keyId}",
  tags,
  summary: "Revoke a key (admin key)",
  request: { params: keyParamsSchema },
  responses: {
    200: jsonResponse(keyInfoSchema, "The revoked key"),
    ...errorResponses(400, 401, 404),
  },
});

function keyView(record: ApiKeyRecord) {
  const { hash: _hash, ...rest } = record;
  return rest;
}

/** Admin routes: tenants and their keys; revoking a key ends its open event streams. */
export function adminRoutes(deps: AppDeps, streams: StreamCounter) {
  const tenantOf = async (tenantId: string) => {
    const tenant = await deps.keys.getTenant(tenantId);
    if (!tenant) throw new ApiError(404, "tenant_not_found", `no tenant "${tenantId}"`);
    return tenant;
  };
  return new OpenAPIHono<ServerEnv>({ defaultHook: validationHook })
    .openapi(createTenant, async (c) => {
      const { name } = c.req.valid("json");
      return c.json(await deps.keys.createTenant(name), 201);
    })
    .openapi(listTenants, async (c) => c.json({ tenants: await deps.keys.listTenants() }, 200))
    .openapi(createKey, async (c) => {
      const { tenantId } = c.req.valid("param");
      const body = c.req.valid("json") ?? {};
      await tenantOf(tenantId);
      const issued = await deps.keys.createKey(tenantId, body.label);
      return c.json({ ...keyView(issued.record), key: issued.key }, 201);
    })
    .openapi(listKeys, async (c) => {
      const { tenantId } = c.req.valid("param");
      await tenantOf(tenantId);
      return c.json({ keys: (await deps.keys.listKeys(tenantId)).map(keyView) }, 200);
    })
    .openapi(revokeKey, async (c) => {
      const { tenantId, keyId } = c.req.valid("param");
      await tenantOf(tenantId);
      if (!(await deps.keys.revokeKey(tenantId, keyId))) {
        throw new ApiError(
          404,
          "key_not_found",
          `no active key "${keyId}" in tenant "${tenantId}"`,
        );
      }
      // Its open event streams end now, not at their next key check.
      streams.endKey(keyId);
      const record = (await deps.keys.listKeys(tenantId)).find(
        (k) => k.id === keyId,
      ) as ApiKeyRecord;
      return c.json(keyView(record), 200);
    });
}
