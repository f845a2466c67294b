import { z } from "zod";

/**
 * How long a UI request waits for an answer before it resolves to no answer, by default:
 * 5 minutes.
 */
export const DEFAULT_UI_TIMEOUT_MS = 300_000;

/** How serious a notification is. */
export const notifyLevelSchema = z.enum(["info", "warning", "error"]);
/** How serious a notification is. */
export type NotifyLevel = z.infer<typeof notifyLevelSchema>;

/** A request to pick one of `options`; the answer is the option picked. */
export const uiSelectPayloadSchema = z.strictObject({
  kind: z.literal("select"),
  title: z.string().min(1),
  options: z.array(z.string().min(1)).min(1),
});
/** A yes/no question; the answer is a boolean. */
export const uiConfirmPayloadSchema = z.strictObject({
  kind: z.literal("confirm"),
  title: z.string().min(1),
  message: z.string(),
});
/** A request for a line of text; the answer is the text typed (possibly empty). */
export const uiInputPayloadSchema = z.strictObject({
  kind: z.literal("input"),
  title: z.string().min(1),
  placeholder: z.string().optional(),
});
/** The data part of a question an extension asks: select, confirm or input. */
export const uiQuestionPayloadSchema = z.discriminatedUnion("kind", [
  uiSelectPayloadSchema,
  uiConfirmPayloadSchema,
  uiInputPayloadSchema,
]);
/** The data part of a question an extension asks: select, confirm or input. */
export type UIQuestionPayload = z.infer<typeof uiQuestionPayloadSchema>;

/** A message shown to the user without waiting for an answer. */
export const uiNotificationSchema = z.strictObject({
  extensionName: z.string(),
  message: z.string().min(1),
  level: notifyLevelSchema,
});
/** A message shown to the user without waiting for an answer. */
export type UINotification = z.infer<typeof uiNotificationSchema>;

/** A key pressed while a {@link CustomUIComponent} has the keyboard. */
export interface CustomUIKey {
  /** The text the key types (empty for keys that type nothing). */
  input: string;
  /** Named keys. */
  name?: "up" | "down" | "left" | "right" | "enter" | "escape" | "tab" | "backspace";
  ctrl?: boolean;
}

/**
 * A UI of an extension's own, shown by the terminal app with the keyboard focus. Esc always
 * closes it with no answer; it closes with an answer when it calls `done`.
 * @example
 * ```ts
 * let n = 0;
 * const count = await ctx.ui.custom<number>({
 *   render: () => [`count: ${n} (↑ to add, enter to finish)`],
 *   handleKey: (key, done) => { if (key.name === "up") n++; if (key.name === "enter") done(n); },
 * });
 * ```
 */
export interface CustomUIComponent<T = unknown> {
  /** The lines to show, at most `width` columns; called again after every key. */
  render(width: number): string[];
  /** A key pressed while the component has the focus (Esc excepted). */
  handleKey?(key: CustomUIKey, done: (value: T) => void): void;
}

/** A question as the app receives it: the payload, who asks, and until when. */
export type UIQuestion = UIQuestionPayload & {
  /** Unique per runner; a server uses it in `POST /v1/runs/:id/ui/:requestId`. */
  id: string;
  extensionName: string;
  /** How long the extension waits; after that the request is withdrawn. */
  timeoutMs: number;
};

/** A custom component as the app receives it. */
export interface UICustomRequest {
  kind: "custom";
  id: string;
  extensionName: string;
  timeoutMs: number;
  component: CustomUIComponent;
}

/** Every request an {@link ExtensionUIProvider} may be asked to show. */
export type UIRequest = UIQuestion | UICustomRequest;

/**
 * What an app provides so extensions can talk to the user (the terminal app's dialogs, a
 * test's script). The runner enforces timeouts and
 * cancellation and checks answers: `request` only needs to show the request, resolve with
 * the user's answer, and close it when `signal` aborts (the answer is no longer wanted).
 */
export interface ExtensionUIProvider {
  /**
   * Whether someone can answer. When false, `ctx.hasUI` is false and every request
   * resolves to no answer (`undefined`) at once, without calling `request`.
   */
  readonly interactive: boolean;
  /**
   * Shows a request; resolves with the answer, or `undefined` for none (dismissed). An
   * answer of the wrong shape (an option not offered, a non-boolean confirm) counts as none.
   */
  request(request: UIRequest, signal: AbortSignal): unknown;
  /** Shows a notification (the terminal app's footer, a server event). */
  notify(notification: UINotification): void;
}

/** Options of one UI request. */
export interface UIRequestOptions {
  /** Aborting it withdraws the request: it resolves to no answer. */
  signal?: AbortSignal;
  /** How long to wait for an answer, in ms; the runner's `uiTimeoutMs` by default. */
  timeoutMs?: number;
}

/**
 * How an extension talks to the user: `ctx.ui`. Every request resolves to `undefined`
 * ("no answer") when there is no interactive UI (`ctx.hasUI` is false: `arbor run`, a
 * server client that does not answer), when it times out, when it is cancelled (its
 * `signal`, the call's `ctx.signal`, session shutdown) or when the user dismisses it. So a
 * permission gate should treat `undefined` as "no".
 */
export interface ExtensionUI {
  /**
   * Asks the user to pick one of `options`.
   * @example
   * ```ts
   * const mode = await ctx.ui.select("Mode", ["fast", "careful"]);
   * if (mode === undefined) return; // no answer
   * ```
   */
  select(
    title: string,
    options: readonly string[],
    opts?: UIRequestOptions,
  ): Promise<string | undefined>;
  /**
   * Asks a yes/no question.
   * @example
   * ```ts
   * if ((await ctx.ui.confirm("Run?", command)) !== true) return { block: true, reason: "denied" };
   * ```
   */
  confirm(title: string, message: string, opts?: UIRequestOptions): Promise<boolean | undefined>;
  /** Asks for a line of text. */
  input(title: string, placeholder?: string, opts?: UIRequestOptions): Promise<string | undefined>;
  /** Shows a message (the terminal app's footer); never waits. Level `info` by default. */
  notify(message: string, level?: NotifyLevel): void;
  /** Shows a component of the extension's own with the keyboard focus (terminal app only). */
  custom<T>(component: CustomUIComponent<T>, opts?: UIRequestOptions): Promise<T | undefined>;
}
