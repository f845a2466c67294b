import type { ModelInfo } from "./catalogue.js";
import type { ModelEvent } from "./events.js";
import type { ModelRequest } from "./request.js";

/**
 * A model the runner can stream from. Implementations never throw out of the iterator:
 * every failure, including an abort, arrives as a final `error` event, and every stream
 * ends with exactly one `done` or `error` event.
 *
 * @example
 * ```ts
 * for await (const event of model.stream({ messages: [{ role: "user", content: "Hi" }] })) {
 *   if (event.type === "text_delta") process.stdout.write(event.delta);
 * }
 * ```
 */
export interface Model {
  /** The catalogue entry describing this model. */
  readonly info: ModelInfo;
  /** Starts one call; the request's `signal` cancels the underlying HTTP request. */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
