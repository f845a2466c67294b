import type { Context, MiddlewareHandler } from "hono";
import type { ApiKeyStore } from "../auth/api-key-schema.js";
import { sameKey } from "../auth/api-key-schema.js";
import { ApiError } from "../errors/index.js";
import { type AuthFailures, clientAddress } from "./auth-failures.js";
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

/**
 * Runs a key check for one request: an address past its failures is refused first (429),
 * and a failed check (401) counts against the address.
 */
async function checked<T>(c: Context, failures: AuthFailures, check: () => Promise<T>): Promise<T> {
  const address = clientAddress(c);
  failures.check(c, address);
  try {
    return await check();
  } catch (error) {
    if (ApiError.isInstance(error) && error.status === 401) failures.fail(address);
    throw error;
  }
}

/**
 * Lets through requests with a valid tenant key and sets `owner` and `apiKey`; 401
 * otherwise. Nothing of the body has been read yet.
 */
export function tenantAuth(
  keys: ApiKeyStore,
  failures: AuthFailures,
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    await checked(c, failures, async () => {
      const key = bearerOf(c.req.header("authorization"));
      const owner = await keys.authenticate(key);
      if (!owner) throw new ApiError(401, "invalid_key", "the API key is unknown or revoked");
      c.set("owner", owner);
      c.set("apiKey", key);
    });
    return next();
  };
}

/** Lets through requests with the admin key; 401 otherwise (and always when none is set). */
export function adminAuth(
  adminKey: string | undefined,
  failures: AuthFailures,
): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    await checked(c, failures, async () => {
      const key = bearerOf(c.req.header("authorization"));
      if (adminKey === undefined || !sameKey(key, adminKey)) {
        throw new ApiError(401, "invalid_key", "admin routes need the admin key (ARBOR_ADMIN_KEY)");
      }
      c.set("owner", { keyId: "admin", tenantId: "" });
    });
    return next();
  };
}
