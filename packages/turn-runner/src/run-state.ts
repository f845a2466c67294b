import type { Usage } from "@arbor/providers";
import type { ResolvedTtsrRule } from "@arbor/ttsr";
import type { FinalReport, FinalTurnReason } from "./contracts/index.js";
import type { RunControl } from "./run-control.js";
import type { RunEvents } from "./run-events.js";
import type { RunTrace } from "./run-trace.js";

/** Usage with every counter at zero. */
export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

/** What one running prompt carries from turn to turn. */
export interface RunState {
  /** The run's events: stamped with the run id and a sequence number, kept for subscribers. */
  channel: RunEvents;
  /** Stop, abort and shutdown of this run. */
  control: RunControl;
  /** Fires when the run is ended at once (abort or shutdown); the same as `control.signal`. */
  signal: AbortSignal;
  usage: Usage;
  cost: number;
  /** The report the last accepted final answer delivered. */
  finalReport: Extract<FinalReport, { status: "delivered" }> | undefined;
  /** The OpenTelemetry spans of this run (no-ops without an SDK). */
  trace: RunTrace;
  /** Set when a tool output was dropped for lack of context: the next turn is the final one. */
  contextExhausted: boolean;
  /** Requests sent over the guard's limit after the final turn was forced. */
  overLimitRequests: number;
  /** Set once the runner forced the final turn of this run, with why. */
  finalTurn: FinalTurnReason | undefined;
  /** The turn running (or last run): what a tool reporting progress belongs to. */
  turnIndex: number;
  /** Models without a price already reported by a `model_unpriced` event in this run. */
  unpricedReported: Set<string>;
  /** Matched rules with `interruptMode: "never"`, injected at the end of the turn. */
  queuedRules: Map<string, ResolvedTtsrRule>;
}
