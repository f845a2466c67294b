import type { ApprovalAnswer, ApprovalRequest } from "../approval/index.js";

/** A question on screen and how to answer it. */
export interface PendingApproval {
  request: ApprovalRequest;
  answer(answer: ApprovalAnswer): void;
}

/**
 * Hands the gate's questions to the interactive app: `ask` resolves once the user
 * answers on screen. An external store for React (`subscribe`/`getState`), one question
 * at a time (the gate asks one by one).
 */
export class ApprovalPrompter {
  #pending: PendingApproval | undefined;
  readonly #listeners = new Set<() => void>();

  /** Shows the question and resolves with the user's answer. */
  readonly ask = (request: ApprovalRequest): Promise<ApprovalAnswer> =>
    new Promise((resolve) => {
      this.#pending = {
        request,
        answer: (answer) => {
          this.#pending = undefined;
          this.#emit();
          resolve(answer);
        },
      };
      this.#emit();
    });

  /** Answers the question on screen, if any, with no (the app is closing or the run stops). */
  cancel(): void {
    this.#pending?.answer("no");
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getState = (): PendingApproval | undefined => this.#pending;

  #emit(): void {
    for (const listener of this.#listeners) listener();
  }
}
