import type { ExtensionUIProvider, UINotification, UIRequest } from "@arbor/orchestration";

/** The request on screen and how to answer it. */
export interface PendingUIRequest {
  request: UIRequest;
  /** Closes the dialog with an answer (`undefined`: dismissed). */
  answer(value: unknown): void;
}

/** What the terminal shows for extensions: the dialog on screen and the latest notices. */
export interface TerminalUIState {
  pending: PendingUIRequest | undefined;
  /** Requests waiting behind the one on screen. */
  queued: number;
  /** The newest notifications, oldest first (at most {@link MAX_NOTIFICATIONS}). */
  notifications: readonly UINotification[];
}

/** How many notifications the footer keeps. */
export const MAX_NOTIFICATIONS = 3;

/**
 * The terminal app's {@link ExtensionUIProvider}: extensions' questions become dialogs, one
 * at a time in the order asked, and notifications go to the footer. An external store for
 * React (`subscribe`/`getState`). A request withdrawn by the runner (timeout, cancel,
 * shutdown) leaves the screen; {@link TerminalExtensionUI.cancelAll} dismisses everything
 * (the app is closing).
 */
export class TerminalExtensionUI implements ExtensionUIProvider {
  readonly interactive = true;
  #queue: PendingUIRequest[] = [];
  #notifications: UINotification[] = [];
  #state: TerminalUIState = { pending: undefined, queued: 0, notifications: [] };
  readonly #listeners = new Set<() => void>();

  request(request: UIRequest, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve) => {
      const entry: PendingUIRequest = {
        request,
        answer: (value) => {
          const at = this.#queue.indexOf(entry);
          if (at < 0) return;
          this.#queue.splice(at, 1);
          signal.removeEventListener("abort", withdrawn);
          this.#emit();
          resolve(value);
        },
      };
      const withdrawn = () => entry.answer(undefined);
      if (signal.aborted) return resolve(undefined);
      signal.addEventListener("abort", withdrawn, { once: true });
      this.#queue.push(entry);
      this.#emit();
    });
  }

  notify(notification: UINotification): void {
    this.#notifications = [...this.#notifications, notification].slice(-MAX_NOTIFICATIONS);
    this.#emit();
  }

  /** Dismisses every dialog (no answer), e.g. when the app closes. */
  cancelAll(): void {
    for (const entry of [...this.#queue]) entry.answer(undefined);
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): TerminalUIState => this.#state;

  #emit(): void {
    this.#state = {
      pending: this.#queue[0],
      queued: Math.max(0, this.#queue.length - 1),
      notifications: this.#notifications,
    };
    for (const listener of [...this.#listeners]) listener();
  }
}
