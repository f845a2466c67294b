import {
  type AgentNode,
  type OrchestrationRun,
  type RunAgentOptions,
  runAgent,
} from "@arbor/orchestration";
import type { Session } from "@arbor/session-store";
import type { LendingSessionStore } from "../host/lending-session-store.js";

/** Options of {@link AgentTreeRunner}. */
export interface AgentTreeRunnerOptions {
  /** The loaded agent tree the prompts run on. */
  tree: AgentNode;
  /** The agent file it was loaded from (absolute), shown in the app and stored in the session. */
  file: string;
  /** The store of the app's session and of every child session the runs create. */
  store: LendingSessionStore;
  /** Everything else `runAgent` takes: models, tools, rules, turn-runner options, cwd. */
  run: Omit<RunAgentOptions, "store" | "sessionDir" | "sessionId" | "signal">;
}

/**
 * Runs each prompt of the interactive app through `runAgent` on the app's own session:
 * the root agent answers in it (the session is lent, so the app's lock holds), advisors,
 * router destinations, handoffs and sub-agents each in a child session of the same store.
 */
export class AgentTreeRunner {
  constructor(private readonly options: AgentTreeRunnerOptions) {}

  /** The agent file the app runs (absolute). */
  get file(): string {
    return this.options.file;
  }

  /** The root agent's name: the first part of every agent path of the run. */
  get rootName(): string {
    return this.options.tree.definition.name;
  }

  /**
   * Starts `text` on the agent tree with `session` as the root agent's session; the
   * session is lent to the run until it ends.
   */
  prompt(session: Session, text: string): OrchestrationRun {
    const giveBack = this.options.store.lend(session);
    try {
      const run = runAgent(this.options.tree, text, {
        ...this.options.run,
        store: this.options.store,
        sessionId: session.id,
      });
      void run.result.then(giveBack, giveBack);
      return run;
    } catch (error) {
      giveBack();
      throw error;
    }
  }
}
