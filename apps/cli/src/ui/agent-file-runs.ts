import type { OrchestrationRun } from "@arbor/orchestration";
import type { Session } from "@arbor/session-store";
import type { AgentTreeRunner } from "../agent-tree/index.js";
import { applyOrchestrationEvent } from "./orchestration-items.js";
import type { TranscriptItem } from "./transcript-item.js";

/** Where an agent file's run shows its progress: the app's transcript and notices. */
export interface AgentFileRunView {
  /** The transcript now. */
  items(): readonly TranscriptItem[];
  /** Shows a new transcript; `derive: false` for deltas (nothing stored changed yet). */
  show(items: readonly TranscriptItem[], derive: boolean): void;
  notify(text: string, tone: "info" | "error"): void;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The runs of the app's agent file, one at a time: each prompt runs the agent tree on the
 * app's session and streams into the transcript (child runs as rows, the answering
 * agents' text under their agent paths). Abort reaches every agent of the run.
 */
export class AgentFileRuns {
  private current: OrchestrationRun | undefined;

  constructor(
    private readonly tree: AgentTreeRunner,
    private readonly view: AgentFileRunView,
  ) {}

  /** Whether a run is under way. */
  get running(): boolean {
    return this.current !== undefined;
  }

  /** Runs `text` on the agent tree in `session`; resolves when every agent of the run ended. */
  async run(session: Session, text: string): Promise<void> {
    let run: OrchestrationRun;
    try {
      run = this.tree.prompt(session, text);
    } catch (error) {
      this.view.notify(`The run failed: ${messageOf(error)}`, "error");
      return;
    }
    this.current = run;
    try {
      for await (const event of run.events) {
        const delta =
          event.type === "text_delta" ||
          event.type === "thinking_delta" ||
          event.type === "toolcall_delta";
        this.view.show(applyOrchestrationEvent(this.view.items(), event), !delta);
      }
      const result = await run.result;
      if (result.finalAgent !== this.tree.rootName) {
        this.view.notify(`Answered by ${result.finalAgent}.`, "info");
      }
    } catch (error) {
      this.view.notify(`The run failed: ${messageOf(error)}`, "error");
    } finally {
      this.current = undefined;
    }
  }

  /** Aborts the run under way, every child included; false when none runs. */
  abort(): boolean {
    if (!this.current) return false;
    this.current.abort();
    return true;
  }

  /** Resolves once no run is under way. */
  async settled(): Promise<void> {
    await this.current?.result.catch(() => undefined);
  }

  /** Aborts the run under way and waits until every child recorded its outcome. */
  async close(): Promise<void> {
    this.abort();
    await this.settled();
  }
}
