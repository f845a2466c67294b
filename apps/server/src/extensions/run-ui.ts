import type {
  ExtensionUIProvider,
  UINotification,
  UIQuestion,
  UIRequest,
} from "@arbor/orchestration";
import { ApiError } from "../errors/index.js";
import type { ExtensionRunEvent, UiOutcome } from "./extension-events.js";
import type { UiAnswer } from "./ui-answer.js";

/** What a {@link RunUi} works with. */
export interface RunUiOptions {
  /** Adds an event to the run's event sequence. */
  emit: (event: ExtensionRunEvent) => void;
  /** The longest a request waits, in ms (a shorter wait the extension asks for wins). */
  maxWaitMs: number;
  /** Clock seam. */
  now?: () => number;
}

interface PendingRequest {
  request: UIQuestion;
  finish: (outcome: UiOutcome, answer?: unknown) => void;
}

/** How many ended requests a run remembers, to answer a late answer with 409 rather than 404. */
const REMEMBERED = 1_000;

/**
 * The `ctx.ui` of one server run: each `select`/`confirm`/`input` becomes a `ui_request`
 * event with an id and an expiry, answered through {@link RunUi.answer} (the
 * `POST /v1/runs/:id/ui/:requestId` route); `notify` becomes a `ui_notify` event. A request
 * nobody answers in time, a withdrawn one (the extension's signal, an aborted call) and
 * every open one when the run is stopped or ends resolves to no answer (`undefined`), and
 * a `ui_resolved` event says how each ended. `custom` components cannot be shown over
 * HTTP: they resolve to no answer at once.
 */
export class RunUi implements ExtensionUIProvider {
  /** A client may answer: `ctx.hasUI` is true over the server. */
  readonly interactive = true;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly ended = new Map<string, UiOutcome>();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: RunUiOptions) {
    this.now = options.now ?? Date.now;
  }

  /** {@inheritDoc ExtensionUIProvider.request} */
  request(request: UIRequest, signal: AbortSignal): Promise<unknown> {
    if (request.kind === "custom" || this.closed || signal.aborted) {
      return Promise.resolve(undefined);
    }
    const waitMs =
      request.timeoutMs > 0
        ? Math.min(request.timeoutMs, this.options.maxWaitMs)
        : this.options.maxWaitMs;
    const expiresAt = this.now() + waitMs;
    const { id } = request;
    return new Promise((resolve) => {
      const finish = (outcome: UiOutcome, answer?: unknown) => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.remember(id, outcome);
        this.options.emit({ type: "ui_resolved", requestId: id, outcome });
        resolve(answer);
      };
      // The runner withdraws a request on its own timeout too: past the expiry, that is one.
      const onAbort = () => finish(this.now() >= expiresAt ? "timeout" : "cancelled");
      const timer = setTimeout(() => finish("timeout"), waitMs);
      this.pending.set(id, { request, finish });
      signal.addEventListener("abort", onAbort, { once: true });
      this.options.emit({
        type: "ui_request",
        requestId: id,
        kind: request.kind,
        extensionName: request.extensionName,
        title: request.title,
        ...(request.kind === "select" ? { options: [...request.options] } : {}),
        ...(request.kind === "confirm" ? { message: request.message } : {}),
        ...(request.kind === "input" && request.placeholder !== undefined
          ? { placeholder: request.placeholder }
          : {}),
        expiresAt: new Date(expiresAt).toISOString(),
      });
    });
  }

  /** {@inheritDoc ExtensionUIProvider.notify} */
  notify(notification: UINotification): void {
    if (this.closed) return;
    this.options.emit({ type: "ui_notify", ...notification });
  }

  /** The ids of the requests waiting for an answer. */
  get open(): string[] {
    return [...this.pending.keys()];
  }

  /**
   * Answers an open request.
   * @throws ApiError 404 `ui_request_not_found` for an id this run never asked,
   *   409 `ui_request_closed` for one already answered, timed out or cancelled,
   *   400 `ui_answer_mismatch` for an answer of another kind, 400 `invalid_ui_answer` for
   *   an option the request did not offer
   */
  answer(requestId: string, answer: UiAnswer): void {
    const pending = this.pending.get(requestId);
    if (!pending) {
      const outcome = this.ended.get(requestId);
      if (outcome === undefined) {
        throw new ApiError(404, "ui_request_not_found", `no UI request "${requestId}" in this run`);
      }
      throw new ApiError(
        409,
        "ui_request_closed",
        `UI request "${requestId}" is over (${outcome}); it cannot be answered again`,
      );
    }
    const { request } = pending;
    if (answer.kind === "dismiss") {
      pending.finish("dismissed");
      return;
    }
    if (answer.kind !== request.kind) {
      throw new ApiError(
        400,
        "ui_answer_mismatch",
        `UI request "${requestId}" is a ${request.kind}; answer with { "kind": "${request.kind}", "value": … } or { "kind": "dismiss" }`,
      );
    }
    if (request.kind === "select" && !request.options.includes(answer.value as string)) {
      throw new ApiError(
        400,
        "invalid_ui_answer",
        `body.value: not one of the options of UI request "${requestId}"`,
      );
    }
    pending.finish("answered", answer.value);
  }

  /** Resolves every open request to no answer (the run is stopping). */
  cancelAll(): void {
    for (const pending of [...this.pending.values()]) pending.finish("cancelled");
  }

  /** Cancels the open requests; later requests resolve to no answer at once. */
  close(): void {
    this.cancelAll();
    this.closed = true;
  }

  private remember(id: string, outcome: UiOutcome): void {
    this.ended.set(id, outcome);
    if (this.ended.size > REMEMBERED) {
      const oldest = this.ended.keys().next().value as string;
      this.ended.delete(oldest);
    }
  }
}
