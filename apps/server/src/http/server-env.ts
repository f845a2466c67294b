import type { KeyOwner } from "../auth/api-key-schema.js";

/** What middleware hands the routes: the owner of the request's key, and the key. */
export interface ServerEnv {
  Variables: { owner: KeyOwner; apiKey: string };
}
