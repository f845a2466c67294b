import type { MiddlewareHandler } from "hono";
import type { ApiKeyStore } from "../auth/api-key-schema.js";
import { sameKey } from "../auth/api-key-schema.js";
import { ApiError } from "../errors/index.js";
import type { ServerEnv } from "./server-env.js";

const BEARER = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/;

/** The key of an `Authorization: Bearer <key>` header. */
function bearerOf(header: string | undefined): string {
  if (header === undefined) {
    throw new ApiError(401, "unauthorized", "send an API key as Authorization: Bearer <key>");
  }
  const match = BEARER.exec(header);
  if (!match?.[1])
    throw new ApiError(401, "unauthorized", "the Authorization header is not Bearer <key>");
  return match[1];
}

/** Lets through requests with a valid tenant key and sets `owner`; 401 otherwise. */
export function tenantAuth(keys: ApiKeyStore): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const owner = await keys.authenticate(bearerOf(c.req.header("authorization")));
    if (!owner) throw new ApiError(401, "invalid_key", "the API key is unknown or revoked");
    c.set("owner", owner);
    return next();
  };
}

/** Lets through requests with the admin key; 401 otherwise (and always when none is set). */
export function adminAuth(adminKey: string | undefined): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    const key = bearerOf(c.req.header("authorization"));
    if (adminKey === undefined || !sameKey(key, adminKey)) {
      throw new ApiError(401, "invalid_key", "admin routes need the admin key (ARBOR_ADMIN_KEY)");
    }
    c.set("owner", { keyId: "admin", tenantId: "" });
    return next();
  };
}
