import type {
  ContextUsage,
  ExtensionModelInfo,
  ExtensionNavigateOptions,
  ExtensionSessionActions,
} from "../session-actions.js";

/** One action an extension took, in call order. */
export type SessionActionCall =
  | { action: "compact"; instructions: string | undefined }
  | { action: "abort" }
  | { action: "waitForIdle" }
  | { action: "newSession" }
  | { action: "fork"; entryId: string }
  | { action: "navigateTree"; targetId: string | null; options: ExtensionNavigateOptions };

/**
 * {@link ExtensionSessionActions} for tests: records every action and answers from what it
 * was given (a model, a catalogue, a context usage, whether it is idle). New sessions and
 * forks get ids `session-1`, `session-2`, …
 */
export class FakeSessionActions implements ExtensionSessionActions {
  readonly calls: SessionActionCall[] = [];
  idle = true;
  private sessions = 0;

  constructor(
    readonly state: {
      model?: ExtensionModelInfo;
      models?: ExtensionModelInfo[];
      usage?: ContextUsage;
    } = {},
  ) {}

  model(): ExtensionModelInfo | undefined {
    return this.state.model;
  }

  models(): ExtensionModelInfo[] {
    return this.state.models ?? (this.state.model ? [this.state.model] : []);
  }

  getContextUsage(): ContextUsage | undefined {
    return this.state.usage;
  }

  async compact(instructions?: string) {
    this.calls.push({ action: "compact", instructions });
    return { status: "compacted" as const };
  }

  isIdle(): boolean {
    return this.idle;
  }

  abort(): void {
    this.calls.push({ action: "abort" });
  }

  async waitForIdle(): Promise<void> {
    this.calls.push({ action: "waitForIdle" });
  }

  async newSession() {
    this.calls.push({ action: "newSession" });
    return { sessionId: `session-${++this.sessions}` };
  }

  async fork(entryId: string) {
    this.calls.push({ action: "fork", entryId });
    return { sessionId: `session-${++this.sessions}` };
  }

  async navigateTree(targetId: string | null, options: ExtensionNavigateOptions) {
    this.calls.push({ action: "navigateTree", targetId, options });
    return { cancelled: false };
  }
}
