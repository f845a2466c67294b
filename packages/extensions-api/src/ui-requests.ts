import { z } from "zod";
import { checkInput } from "./check-input.js";
import { ExtensionApiError } from "./errors.js";
import { runAsHost } from "./extension-scope.js";
import { clampTimeout, type TimerSeam } from "./timeout.js";
import {
  type CustomUIComponent,
  type ExtensionUI,
  type ExtensionUIProvider,
  type NotifyLevel,
  notifyLevelSchema,
  type UIQuestionPayload,
  type UIRequest,
  type UIRequestOptions,
  uiQuestionPayloadSchema,
} from "./ui.js";

/** What one extension's `ctx.ui` needs from the runner. */
export interface UIBindings {
  extensionName: string;
  /** The app's provider now, if any. */
  provider(): ExtensionUIProvider | undefined;
  /** The default wait, in ms. */
  timeoutMs: number;
  timers: TimerSeam;
  /** A new request id. */
  nextId(): string;
  /** Signals that withdraw every request: the call's and the session's lifetime. */
  signals: readonly (AbortSignal | undefined)[];
}

/** Whether the app can answer UI requests now. */
export function hasInteractiveUI(provider: ExtensionUIProvider | undefined): boolean {
  return provider?.interactive === true;
}

/**
 * Builds `ctx.ui` for one call of one extension. Arguments are checked here (a malformed
 * request rejects with `invalid_input` in the extension that made it); everything else
 * (no UI, timeout, cancellation, a dismissed or malformed answer, a provider that throws)
 * resolves to `undefined`.
 */
export function createExtensionUI(bindings: UIBindings): ExtensionUI {
  const ask = <T>(
    payload: UIQuestionPayload | { kind: "custom"; component: CustomUIComponent },
    opts: UIRequestOptions | undefined,
    accept: (answer: unknown) => T | undefined,
  ) => request(bindings, payload, opts, accept);
  return {
    select: async (title, options, opts) => {
      const payload = checkQuestion({ kind: "select", title, options: [...(options ?? [])] });
      return ask(payload, opts, (answer) =>
        typeof answer === "string" && payload.kind === "select" && payload.options.includes(answer)
          ? answer
          : undefined,
      );
    },
    confirm: async (title, message, opts) =>
      ask(checkQuestion({ kind: "confirm", title, message }), opts, (answer) =>
        typeof answer === "boolean" ? answer : undefined,
      ),
    input: async (title, placeholder, opts) =>
      ask(
        checkQuestion({
          kind: "input",
          title,
          ...(placeholder === undefined ? {} : { placeholder }),
        }),
        opts,
        (answer) => (typeof answer === "string" ? answer : undefined),
      ),
    notify: (message, level = "info") => {
      const text = checkInput(z.string().min(1), message, "ui.notify: the message");
      const checkedLevel: NotifyLevel = checkInput(
        notifyLevelSchema,
        level,
        "ui.notify: the level",
      );
      const provider = bindings.provider();
      if (!provider) return;
      try {
        runAsHost(() =>
          provider.notify({
            extensionName: bindings.extensionName,
            message: text,
            level: checkedLevel,
          }),
        );
      } catch {
        // A notification the app cannot show is lost, never the extension's failure.
      }
    },
    custom: async <T>(component: CustomUIComponent<T>, opts?: UIRequestOptions) => {
      if (typeof component?.render !== "function")
        throw new ExtensionApiError(
          "invalid_input",
          "ui.custom: the component needs a render(width) function",
        );
      return ask<T>(
        { kind: "custom", component: component as CustomUIComponent },
        opts,
        (answer) => answer as T,
      );
    },
  };
}

function checkQuestion(payload: unknown): UIQuestionPayload {
  const kind = (payload as { kind: string }).kind;
  return checkInput(uiQuestionPayloadSchema, payload, `ui.${kind}`);
}

function request<T>(
  bindings: UIBindings,
  payload: UIQuestionPayload | { kind: "custom"; component: CustomUIComponent },
  opts: UIRequestOptions = {},
  accept: (answer: unknown) => T | undefined,
): Promise<T | undefined> {
  // Clamped: a timer longer than 2^31 − 1 ms fires at once.
  const timeoutMs = clampTimeout(
    checkInput(
      z.number().int().nonnegative().optional(),
      opts.timeoutMs,
      `ui.${payload.kind}: the timeoutMs`,
    ) ?? bindings.timeoutMs,
  );
  const provider = bindings.provider();
  const signals = [...bindings.signals, opts.signal].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  if (!provider || !hasInteractiveUI(provider) || signals.some((signal) => signal.aborted))
    return Promise.resolve(undefined);
  const withdraw = new AbortController();
  return new Promise<T | undefined>((resolve) => {
    let handle: unknown;
    let armed = false;
    const finish = (answer: T | undefined) => {
      if (withdraw.signal.aborted) return;
      withdraw.abort();
      if (armed) bindings.timers.clearTimeout(handle);
      for (const signal of signals) signal.removeEventListener("abort", onAbort);
      resolve(answer);
    };
    const onAbort = () => finish(undefined);
    for (const signal of signals) signal.addEventListener("abort", onAbort, { once: true });
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) {
      armed = true;
      handle = bindings.timers.setTimeout(() => finish(undefined), timeoutMs);
    }
    const full = {
      ...payload,
      id: bindings.nextId(),
      extensionName: bindings.extensionName,
      timeoutMs,
    } as UIRequest;
    Promise.resolve()
      .then(() => runAsHost(() => provider.request(full, withdraw.signal)))
      .then(
        (answer) => finish(answer === undefined ? undefined : accept(answer)),
        () => finish(undefined),
      );
  });
}
