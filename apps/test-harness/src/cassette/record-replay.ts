import type { Model, ModelEvent, ModelInfo, ModelRequest } from "@arbor/orchestration";
import {
  CASSETTE_VERSION,
  type Cassette,
  cassettePath,
  readCassette,
  writeCassette,
} from "./cassette.js";
import { CassetteNotFoundError } from "./cassette-not-found-error.js";
import { requestKey } from "./request-key.js";

/** Options of {@link recordModel}. */
export interface RecordOptions {
  /** Directory the cassettes are written to (created when missing). */
  dir: string;
  /** Clock for event offsets; defaults to `performance.now`. */
  now?: () => number;
}

/**
 * Wraps a model so every call is passed through unchanged and saved as a cassette keyed by
 * {@link requestKey}, with each event's offset from the start of the call.
 *
 * @example
 * ```ts
 * const recording = recordModel(createOpenAIChatModel({ model: "openai/gpt-4.1", apiKey }), { dir: "__fixtures__/cassettes" });
 * ```
 */
export function recordModel(model: Model, options: RecordOptions): Model {
  const now = options.now ?? (() => performance.now());
  return {
    info: model.info,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const key = requestKey(model.info, request);
      const started = now();
      const events: Cassette["events"] = [];
      for await (const event of model.stream(request)) {
        events.push({ atMs: Math.max(0, Math.round((now() - started) * 1000) / 1000), event });
        yield event;
      }
      const { signal: _signal, ...serialisable } = request;
      await writeCassette(options.dir, {
        version: CASSETTE_VERSION,
        key,
        model: model.info,
        recordedAt: new Date().toISOString(),
        request: serialisable,
        events,
      });
    },
  };
}

/** Options of {@link replayModel}. */
export interface ReplayOptions {
  /** Directory holding the cassettes. */
  dir: string;
  /** The model the cassettes were recorded from; part of every key. */
  info: ModelInfo;
  /** `instant` (default) plays without pauses; `recorded` keeps the recorded timing. */
  speed?: "instant" | "recorded";
}

/**
 * A model that answers each call from its cassette, deterministically. A call without a
 * cassette throws {@link CassetteNotFoundError} naming the key, instead of an `error`
 * event a runner might retry.
 */
export function replayModel(options: ReplayOptions): Model {
  return {
    info: options.info,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const key = requestKey(options.info, request);
      const cassette = await readCassette(options.dir, key);
      if (cassette === undefined)
        throw new CassetteNotFoundError(key, cassettePath(options.dir, key));
      const started = performance.now();
      for (const { atMs, event } of cassette.events) {
        if (options.speed === "recorded") {
          const wait = atMs - (performance.now() - started);
          if (wait > 0) await pause(wait, request.signal);
        }
        if (request.signal?.aborted) {
          yield { type: "error", kind: "aborted", message: "the request was aborted" };
          return;
        }
        yield event;
      }
    },
  };
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      resolve();
    }
    signal?.addEventListener("abort", finish, { once: true });
  });
}
