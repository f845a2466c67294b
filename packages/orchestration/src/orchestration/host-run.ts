import type { SubscribeOptions } from "@arbor/turn-runner";
import type { RunEvent } from "./orchestration-events.js";
import type { OrchestrationResult } from "./orchestration-result.js";

/**
 * A prompt running on a host: one agent, or an agent tree with its advisors, router
 * destinations, handoffs and sub-agents. Its events are one stream in order (`seq` 1, 2,
 * 3, …) whichever agent they came from; its result is the final agent's, with usage and
 * cost rolled up over every run.
 */
export interface HostRun {
  /** The root agent's run id: every event of the stream carries it as `runId`. */
  readonly runId: string;
  /** Every event from the first, for one reader (subscribed when the run started). */
  readonly events: AsyncIterable<RunEvent>;
  /** Resolves once the run and every child ended. */
  readonly result: Promise<OrchestrationResult>;
  /**
   * Joins the stream after `afterSeq`: missed events are replayed, then new ones follow
   * until the run ends. Any number of readers may join, also after the run ended.
   * @throws InvalidSubscriptionError (turn-runner) when `afterSeq` is not a whole number of 0 or more
   */
  subscribe(options?: SubscribeOptions): AsyncIterable<RunEvent>;
  /** Asks every running agent, children included, to finish with one final turn; no new child starts. */
  stop(): void;
  /** Ends every running agent, children included, at once. */
  abort(): void;
}
