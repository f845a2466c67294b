import { arborMarkerGuard, stampArborMarker } from "../arbor-marker.js";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * True for the JSON error bodies providers send: `{"error": {…}}` or `{"error": "…"}`
 * (OpenAI, xAI, Ollama, llama.cpp), `{"type": "error", "error": {…}}` (Anthropic) and
 * `{"object": "error", "message": …}` (vLLM, Mistral).
 */
export function isErrorBody(value: unknown): value is JsonObject {
  if (!isObject(value)) return false;
  if (value.type === "error" || value.object === "error") return true;
  const error = value.error;
  return (isObject(error) || (typeof error === "string" && error !== "")) && !("choices" in value);
}

/**
 * A 2xx response whose body is a JSON error. The fetch wrapper throws it so that the SDK
 * reports a failure instead of an empty stream; the classifier reads `body`.
 */
export class ErrorBodyResponse extends Error {
  /** A stable machine-readable code. */
  readonly code = "error_body_response";
  /** The HTTP status the server sent (2xx). */
  readonly status: number;
  /** The parsed error body. */
  readonly body: JsonObject;

  constructor(status: number, body: JsonObject) {
    super(`the provider answered HTTP ${status} with an error body instead of a stream`);
    this.name = "ErrorBodyResponse";
    stampArborMarker(this, new.target);
    this.status = status;
    this.body = body;
  }

  /** True for an {@link ErrorBodyResponse} from any copy of this package. */
  static readonly isInstance = arborMarkerGuard<ErrorBodyResponse>(
    "@arbor/providers:ErrorBodyResponse",
  );
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const rebuild = (response: Response, body: string) =>
  new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });

/**
 * Looks at JSON responses before the SDK does: a 2xx JSON error body becomes a thrown
 * {@link ErrorBodyResponse}; an error status with a flat body (`{"object": "error",
 * "message": …}`, which the OpenAI SDK would report as "no body") is wrapped as
 * `{"error": {…}}`. Streams and other responses pass through untouched.
 */
export async function inspectJsonResponse(response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (response.body === null || !/json/i.test(type) || /event-stream/i.test(type)) {
    return response;
  }
  const text = await response.text();
  const body = parse(text);
  if (response.ok) {
    if (isErrorBody(body)) throw new ErrorBodyResponse(response.status, body);
    return rebuild(response, text);
  }
  if (isObject(body) && body.error === undefined && typeof body.message === "string") {
    return rebuild(response, JSON.stringify({ error: body }));
  }
  return rebuild(response, text);
}
