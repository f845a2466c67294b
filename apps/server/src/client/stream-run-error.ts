import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** Why {@link StreamRunError} ended a run's stream. */
export type StreamRunErrorCode =
  /** The server answered with an error status (its `{ error: { code, message } }` is kept). */
  | "http_error"
  /** The server answered 2xx but not with `text/event-stream`. */
  | "not_event_stream"
  /** A line or a message of the stream was over its size limit. */
  | "sse_too_large"
  /** An event's `data:` was not JSON, or not a `ServerRunEvent` (see `seq`). */
  | "invalid_event"
  /** The `end` or `resync` message's `data:` was not what the server sends. */
  | "invalid_message"
  /** An event's `seq` skipped one the client never got (and no `resync` said why). */
  | "sequence_gap"
  /** The connection dropped and reconnecting failed `retries` times in a row. */
  | "connection_lost"
  /** The caller's `AbortSignal` aborted (its reason is the `cause`). */
  | "aborted"
  /** The stream was left before its `end` (the `result` of a stream given up early). */
  | "stream_closed";

/**
 * The one error `streamRun` ends with: a stable {@link StreamRunErrorCode}, the HTTP status
 * and the server's error code for `http_error`, and the event's `seq` for `invalid_event`
 * (when the message named one).
 */
export class StreamRunError extends ArborError {
  override readonly name = "StreamRunError";
  declare readonly code: StreamRunErrorCode;

  /**
   * @param code - why the stream ended
   * @param message - what happened, naming the run and the event
   * @param details - `status` and `serverCode` of an error answer, `seq` of a bad event, `cause`
   */
  constructor(
    code: StreamRunErrorCode,
    message: string,
    readonly details: { status?: number; serverCode?: string; seq?: number; cause?: unknown } = {},
  ) {
    super(code, message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** The HTTP status of an `http_error`. */
  get status(): number | undefined {
    return this.details.status;
  }

  /** The `seq` of the event an `invalid_event` is about, when its message named one. */
  get seq(): number | undefined {
    return this.details.seq;
  }

  /** Tells whether a value is a StreamRunError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<StreamRunError>(
    "@arbor/server:StreamRunError",
  );
}
