import { z } from "zod";

/** How long `arbor` waits for a local server to list its models. */
export const SERVER_MODEL_TIMEOUT_MS = 3000;

const modelListSchema = z.looseObject({
  data: z.array(z.looseObject({ id: z.string().min(1) })),
});

/**
 * Whether a base URL points at a server of one's own: this machine or a private network
 * (Ollama, llama.cpp, vLLM, LM Studio), not a cloud endpoint.
 */
export function isLocalServer(baseURL: string): boolean {
  let host: string;
  try {
    host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host === "::1" ||
    host === "0.0.0.0" ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host)
  );
}

/**
 * Asks an OpenAI-compatible server which model it serves (`GET <baseURL>/models`, the first
 * listed). Resolves undefined when it lists none or does not answer in time, so the caller
 * keeps its default.
 *
 * @param fetchFn the fetch to use (a seam for tests)
 */
export async function askServerModel(
  baseURL: string,
  apiKey: string,
  headers: Record<string, string> = {},
  fetchFn: typeof fetch = fetch,
): Promise<string | undefined> {
  const url = `${baseURL.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetchFn(url, {
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      signal: AbortSignal.timeout(SERVER_MODEL_TIMEOUT_MS),
    });
    if (!response.ok) return undefined;
    const parsed = modelListSchema.safeParse(await response.json());
    return parsed.success ? parsed.data.data[0]?.id : undefined;
  } catch {
    return undefined;
  }
}
