import type {
  ExtensionUIProvider,
  UICustomRequest,
  UINotification,
  UIQuestion,
  UIRequest,
} from "../ui.js";

/**
 * One scripted answer, by the kind of request it answers: `{ select: "b" }`,
 * `{ confirm: true }`, `{ input: "text" }`, `{ custom: value }`, or `{ dismiss: true }`
 * (the user closes the dialog: no answer), or `{ ignore: true }` (nobody answers: the
 * request waits for its timeout or cancellation).
 */
export type ScriptedUIAnswer =
  | { select: string }
  | { confirm: boolean }
  | { input: string }
  | { custom: unknown }
  | { dismiss: true }
  | { ignore: true };

/** A request the scripted UI received, without the custom component. */
export type RecordedUIRequest = UIQuestion | Omit<UICustomRequest, "component">;

/**
 * An {@link ExtensionUIProvider} for tests: it answers requests in order from a script,
 * records every request and notification, and fails loudly (a rejection, and an entry in
 * `problems`) on a request past the script or of another kind than its scripted answer.
 *
 * @example
 * ```ts
 * const ui = new ScriptedExtensionUI([{ confirm: true }, { select: "b" }]);
 * runner.bindUI(ui);
 * // … run the extension …
 * ui.assertDone(); // every answer was used, nothing unexpected was asked
 * ```
 */
export class ScriptedExtensionUI implements ExtensionUIProvider {
  readonly interactive: boolean;
  /** Every request, in order. */
  readonly requests: RecordedUIRequest[] = [];
  /** Every notification, in order. */
  readonly notifications: UINotification[] = [];
  /** What went against the script, for a person to read. */
  readonly problems: string[] = [];
  private next = 0;

  constructor(
    private readonly answers: readonly ScriptedUIAnswer[] = [],
    options: { interactive?: boolean } = {},
  ) {
    this.interactive = options.interactive ?? true;
  }

  request(request: UIRequest, signal: AbortSignal): Promise<unknown> {
    const { component: _component, ...recorded } = request as UIRequest & { component?: unknown };
    this.requests.push(recorded as RecordedUIRequest);
    const answer = this.answers[this.next];
    const ordinal = this.next + 1;
    this.next++;
    if (answer === undefined)
      return this.fail(`request #${ordinal} (${describe(request)}) was not scripted`);
    if ("dismiss" in answer) return Promise.resolve(undefined);
    if ("ignore" in answer)
      return new Promise((resolve) =>
        signal.addEventListener("abort", () => resolve(undefined), { once: true }),
      );
    if (!(request.kind in answer))
      return this.fail(
        `request #${ordinal} (${describe(request)}) got the scripted answer ${JSON.stringify(answer)}`,
      );
    return Promise.resolve((answer as Record<string, unknown>)[request.kind]);
  }

  notify(notification: UINotification): void {
    this.notifications.push(notification);
  }

  /** The scripted answers not used yet. */
  get remaining(): number {
    return Math.max(0, this.answers.length - this.next);
  }

  /** @throws Error when an answer was left unused or a request went against the script */
  assertDone(): void {
    const problems = [...this.problems];
    if (this.remaining > 0)
      problems.push(`${this.remaining} scripted answer(s) were never asked for`);
    if (problems.length > 0) throw new Error(`scripted UI: ${problems.join("; ")}`);
  }

  private fail(problem: string): Promise<never> {
    this.problems.push(problem);
    return Promise.reject(new Error(`scripted UI: ${problem}`));
  }
}

function describe(request: UIRequest): string {
  return request.kind === "custom" ? "custom" : `${request.kind} "${request.title}"`;
}
