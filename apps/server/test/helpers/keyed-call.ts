/** A call to a server on loopback with a tenant's key: a JSON body and headers if given. */
export type KeyedCall = (
  method: string,
  path: string,
  json?: unknown,
  headers?: Record<string, string>,
) => Promise<Response>;

/**
 * Calls the server at `baseUrl()` (asked on each call: a restarted server moves) with
 * `Authorization: Bearer <key>`. No test framework here: the benchmarks use it too.
 */
export function keyedCall(baseUrl: () => string, key: string): KeyedCall {
  return (method, path, json, headers = {}) =>
    fetch(`${baseUrl()}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(json !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
}
