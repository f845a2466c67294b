import { z } from "@hono/zod-openapi";

/** The body of every error response. */
export const errorResponseSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "not_found" }),
      message: z.string().openapi({ example: 'no session "…"' }),
    }),
  })
  .openapi("Error");

/** A session id in a path: letters, digits, `-` and `_` (no separators, dots or NUL). */
export const sessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "a session id (letters, digits, - and _)");

/** An entry id in a path or body. */
export const entryIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "an entry id (letters, digits, - and _)");

/** The `:id` path parameter of session routes. */
export const sessionParamsSchema = z.object({
  id: sessionIdSchema.openapi({ param: { name: "id", in: "path" }, example: "019a…" }),
});

/** A stored entry: its type, id and parent, and the fields of its type. */
export const entrySchema = z
  .looseObject({
    type: z.string(),
    id: z.string().optional(),
    parentId: z.string().nullable().optional(),
    timestamp: z.string().optional(),
  })
  .openapi("Entry");

/** The statuses error responses document, by status. */
export function errorResponses<S extends number>(...statuses: S[]) {
  const described: Record<number, string> = {
    400: "The request is invalid",
    401: "No valid API key",
    404: "No such resource for this key",
    409: "The session is busy",
    413: "The body is too large",
    415: "The body is not JSON",
    429: "Too many requests or streams",
  };
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: described[status] ?? "Error",
        content: { "application/json": { schema: errorResponseSchema } },
      },
    ]),
  ) as Record<
    S,
    { description: string; content: { "application/json": { schema: typeof errorResponseSchema } } }
  >;
}

/** A JSON response of a schema. */
export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A JSON request body of a schema. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}
