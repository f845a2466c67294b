import { createHash } from "node:crypto";
import type { ModelInfo, ModelRequest } from "@arbor/orchestration";

/**
 * A stable key for one model call: the first 16 hex digits of the SHA-256 of the model's
 * `provider/id` and the request (abort signal excluded) serialised with sorted keys, so
 * the same call always finds the same cassette, whatever the property order.
 */
export function requestKey(
  info: Pick<ModelInfo, "provider" | "id">,
  request: ModelRequest,
): string {
  const { signal: _signal, ...rest } = request;
  const text = stableStringify({ model: `${info.provider}/${info.id}`, request: rest });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted at every depth; `undefined` members are dropped as JSON does. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_key, member: unknown) => {
    if (member === null || typeof member !== "object" || Array.isArray(member)) return member;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(member).sort())
      sorted[key] = (member as Record<string, unknown>)[key];
    return sorted;
  });
}
