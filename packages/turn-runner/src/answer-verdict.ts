/*
 * What the review of an answer decides, as types: kept apart from the review itself so the
 * final-report and metadata checks can share them without an import cycle.
 */
import type { AnswerProblemKind } from "./contracts/index.js";
import type { KeptReport } from "./final-meta.js";
import type { RequestedToolCall } from "./tool-execution.js";

/** Why an answer was not accepted, most important first when there are several. */
export type AnswerProblem =
  | { kind: "truncated" }
  | { kind: "empty" }
  | { kind: "report_invalid"; issues: string[] }
  | { kind: "report_missing" }
  /**
   * The report is valid but these required metadata blocks are not. `keep`: the report was
   * just locked, so the answer stays on the path and its calls get results.
   */
  | { kind: "meta_missing"; missing: string[]; issues: string[]; keep?: KeptReport }
  | { kind: "tools_unavailable"; toolNames: string[] };

export type { AnswerProblemKind };

/** A report found in an accepted answer. */
export interface DeliveredReport<T> {
  value: T;
  /** True when a trivial repair was needed (JSON in a string, a fence, a wrapper). */
  repaired: boolean;
  /** The final-report call it came through; absent when the model wrote it as text. */
  toolCallId?: string;
  /** The stored answer that carried it, when an earlier answer did (a locked report). */
  entryId?: string;
  /** The metadata blocks extensions required beside it, by name. */
  meta?: Record<string, unknown>;
  /** The results of the answer's `final_meta` calls, to store. */
  metaResults?: Array<{ call: RequestedToolCall; text: string; isError: boolean }>;
}

/** What a finished answer means for the turn. */
export type AnswerReview<T> =
  | {
      accepted: true;
      /** Tool calls to run (none once a report is delivered). */
      toolCalls: RequestedToolCall[];
      /** Calls made beside a delivered report: never run, answered with an error result. */
      skippedCalls: RequestedToolCall[];
      /** The answer's text, the final answer of a run without an output schema. */
      text: string;
      report?: DeliveredReport<T>;
      /**
       * The provider paused a long turn (`pause_turn`): the answer is kept and the model is
       * called again with it, without a new user message.
       */
      paused?: true;
    }
  | { accepted: false; problems: AnswerProblem[] }
  /** The model refused (`refusal`): a run bound to a final report fails, no retry is made. */
  | { accepted: false; refused: true; text: string };
