import type { AnswerProblem, AnswerReview, DeliveredReport } from "./answer-verdict.js";
import type { FinalMetaRun, LockedReport, MetaReading } from "./final-meta.js";
import type { RequestedToolCall } from "./tool-execution.js";

/** What {@link deliverWithMeta} needs of the run. */
export interface MetaReviewContext {
  meta: FinalMetaRun | undefined;
  /** The stored answer, locked with its report when metadata is missing. */
  entryId: string | undefined;
  now: number;
}

/** A final answer whose report validated, before its metadata is checked. */
export interface DeliveredAnswer<T> {
  report: DeliveredReport<T>;
  text: string;
  reportCall: RequestedToolCall | undefined;
  metaCalls: RequestedToolCall[];
  /** Calls beside the report: never run. */
  skippedCalls: RequestedToolCall[];
}

/**
 * Checks the metadata of a final answer whose report validated: with every required block
 * (from this answer's `final_meta` calls or earlier ones of the run) the answer is
 * accepted with its blocks; otherwise the report is locked and the answer is rejected with
 * `meta_missing`, keeping it on the path so only the metadata is asked for.
 */
export function deliverWithMeta<T>(
  context: MetaReviewContext,
  answer: DeliveredAnswer<T>,
): AnswerReview<T> {
  const { meta } = context;
  const { report, text, skippedCalls } = answer;
  if (!meta) return { accepted: true, toolCalls: [], skippedCalls, text, report };
  const readings = answer.metaCalls.map((call) => ({ call, reading: meta.absorb([call]) }));
  const missing = meta.missing();
  if (missing.length === 0) {
    return {
      accepted: true,
      toolCalls: [],
      skippedCalls,
      text,
      report: { ...report, meta: meta.values(), metaResults: results(meta, readings) },
    };
  }
  if (context.entryId !== undefined) {
    meta.lock({ value: report.value, repaired: report.repaired, entryId: context.entryId });
  }
  const problem: AnswerProblem = {
    kind: "meta_missing",
    missing,
    issues: readings.flatMap(({ reading }) => reading.issues),
    keep: {
      meta,
      ...(answer.reportCall ? { reportCallId: answer.reportCall.id } : {}),
      metaCalls: readings,
      otherCalls: skippedCalls,
      now: context.now,
    },
  };
  return { accepted: false, problems: [problem] };
}

/**
 * Reviews an answer to the metadata-only request that follows a locked report: its
 * `final_meta` calls complete the metadata (the locked report is then delivered, other
 * calls are not run) or the answer is rejected with what is still missing.
 */
export function reviewMetaOnly<T>(
  meta: FinalMetaRun,
  locked: LockedReport,
  calls: RequestedToolCall[],
  metaCalls: RequestedToolCall[],
  text: string,
): AnswerReview<T> {
  const readings = metaCalls.map((call) => ({ call, reading: meta.absorb([call]) }));
  const missing = meta.missing();
  if (missing.length > 0) {
    const issues = readings.flatMap(({ reading }) => reading.issues);
    return { accepted: false, problems: [{ kind: "meta_missing", missing, issues }] };
  }
  return {
    accepted: true,
    toolCalls: [],
    skippedCalls: calls.filter((call) => !metaCalls.includes(call)),
    text,
    report: {
      value: locked.value as T,
      repaired: locked.repaired,
      entryId: locked.entryId,
      meta: meta.values(),
      metaResults: results(meta, readings),
    },
  };
}

function results(
  meta: FinalMetaRun,
  readings: Array<{ call: RequestedToolCall; reading: MetaReading }>,
): Array<{ call: RequestedToolCall; text: string; isError: boolean }> {
  return readings.map(({ call, reading }) => ({ call, ...meta.acknowledgement(reading) }));
}
