import type { AssistantMessage } from "@arbor/providers";
import {
  ANSWER_FEEDBACK_CUSTOM_TYPE,
  type AnswerFeedbackDetails,
  isArborEntry,
  readArborEntry,
  type Session,
} from "@arbor/session-store";
import type { AnswerProblem, AnswerReview, DeliveredReport } from "./answer-verdict.js";
import {
  type AgentFailureReason,
  type AnswerProblemKind,
  answerProblemKindSchema,
} from "./contracts/index.js";
import { FINAL_META_TOOL_NAME, type FinalMetaRun, persistKeptReport } from "./final-meta.js";
import { deliverWithMeta, reviewMetaOnly } from "./final-meta-review.js";
import type { ReportContract } from "./final-report.js";
import type { RequestedToolCall } from "./tool-execution.js";

export { ANSWER_FEEDBACK_CUSTOM_TYPE } from "@arbor/session-store";

export type {
  AnswerProblem,
  AnswerProblemKind,
  AnswerReview,
  DeliveredReport,
} from "./answer-verdict.js";

const IMPORTANCE: readonly AnswerProblemKind[] = [
  "truncated",
  "empty",
  "report_invalid",
  "report_missing",
  "meta_missing",
  "tools_unavailable",
];

/** At most this many reasons go into one feedback message. */
const MAX_REASONS = 2;

/**
 * Decides whether an answer that streamed to its end can be used: an empty answer, a
 * final answer cut at the output limit, a missing or invalid final report, and tool calls
 * in a forced final turn are problems; anything else is accepted.
 */
export function reviewAnswer<T>(input: {
  content: AssistantMessage["content"];
  stopReason: string;
  finalTurn: boolean;
  /** The tools a final turn still offers (`availableOnFinalTurn`): their calls are run. */
  finalTurnTools?: readonly string[];
  contract: ReportContract<T> | undefined;
  /** The metadata extensions require beside the report, for this run. */
  meta?: FinalMetaRun | undefined;
  /** The stored answer: a valid report missing metadata is locked with it. */
  entryId?: string;
  /** When the results of a locked answer's calls are stored. */
  now?: number;
}): AnswerReview<T> {
  const { content, contract } = input;
  const calls = content.flatMap((part) => (part.type === "toolCall" ? [part] : []));
  const text = content
    .flatMap((part) => (part.type === "text" ? [part.text] : []))
    .join("")
    .trim();
  // A refusal is the model's answer, not a slip a feedback message fixes; a paused turn
  // is half an answer that the next call continues.
  if (input.stopReason === "refusal") {
    return contract
      ? { accepted: false, refused: true, text }
      : { accepted: true, toolCalls: [], skippedCalls: [], text };
  }
  if (input.stopReason === "pause_turn" && calls.length === 0) {
    return { accepted: true, toolCalls: [], skippedCalls: [], text, paused: true };
  }
  const { meta } = input;
  const metaCalls = meta ? calls.filter((call) => call.name === FINAL_META_TOOL_NAME) : [];
  if (meta?.locked) return reviewMetaOnly(meta, meta.locked, calls, metaCalls, text);
  const reportCall = contract ? calls.find((call) => call.name === contract.toolName) : undefined;
  const otherCalls = calls.filter((call) => call !== reportCall && !metaCalls.includes(call));
  const deliver = (report: DeliveredReport<T>, skippedCalls: RequestedToolCall[]) =>
    deliverWithMeta(
      { meta, entryId: input.entryId, now: input.now ?? 0 },
      { report, text, reportCall, metaCalls, skippedCalls },
    );
  // Metadata alone ends nothing: its calls are answered and the model goes on.
  const metaOnlyTurn = metaCalls.length > 0 && otherCalls.length === 0 && !input.finalTurn;
  const problems: AnswerProblem[] = [];

  if (contract && reportCall) {
    const reading = contract.fromToolCall(reportCall.arguments);
    if (reading.ok) {
      const report = {
        value: reading.value,
        repaired: reading.repaired,
        toolCallId: reportCall.id,
      };
      return deliver(report, otherCalls);
    }
    problems.push({ kind: "report_invalid", issues: reading.issues });
  } else if (
    otherCalls.length > 0 &&
    (!input.finalTurn || otherCalls.every((call) => input.finalTurnTools?.includes(call.name)))
  ) {
    return { accepted: true, toolCalls: [...otherCalls, ...metaCalls], skippedCalls: [], text };
  } else if (contract) {
    const fromText = text === "" ? undefined : contract.fromText(text);
    if (fromText?.ok) return deliver({ value: fromText.value, repaired: true }, []);
    if (metaOnlyTurn) return { accepted: true, toolCalls: metaCalls, skippedCalls: [], text };
    problems.push({ kind: "report_missing" });
  } else if (metaOnlyTurn && text === "") {
    return { accepted: true, toolCalls: metaCalls, skippedCalls: [], text };
  }
  if (input.finalTurn && otherCalls.length > 0) {
    problems.push({ kind: "tools_unavailable", toolNames: otherCalls.map((call) => call.name) });
  }
  if (calls.length === metaCalls.length && text === "") problems.push({ kind: "empty" });
  // Answers that go on (tool calls, a valid report) returned above: a cut one ends nothing.
  if (input.stopReason === "length") problems.push({ kind: "truncated" });
  if (problems.length === 0) {
    if (!meta) return { accepted: true, toolCalls: [], skippedCalls: [], text };
    return deliver({ value: text as T, repaired: false }, []);
  }
  problems.sort((a, b) => IMPORTANCE.indexOf(a.kind) - IMPORTANCE.indexOf(b.kind));
  return { accepted: false, problems: problems.slice(0, MAX_REASONS) };
}

function reasonText(problem: AnswerProblem, reportTool: string | undefined): string {
  switch (problem.kind) {
    case "truncated":
      return "Your previous answer was cut off at the output limit. Answer more briefly.";
    case "empty":
      return "Your previous answer was empty.";
    case "report_invalid":
      return `The ${reportTool} call was rejected (${problem.issues.join("; ")}). Call ${reportTool} again with a report that matches its schema.`;
    case "report_missing":
      return `This task must end with a call to the ${reportTool} tool carrying the whole report; a plain-text answer does not count.`;
    case "meta_missing":
      return `Your final report is received and kept; do not send it again. Call the final_meta tool now with only the missing metadata: ${problem.missing.join(", ")}${problem.issues.length > 0 ? ` (${problem.issues.join("; ")})` : ""}.`;
    case "tools_unavailable":
      return reportTool !== undefined
        ? `No tool but ${reportTool} can be used now (you called ${problem.toolNames.join(", ")}).`
        : `No tool can be used now (you called ${problem.toolNames.join(", ")}); answer in text from what you already know.`;
  }
}

/** The one concise feedback message for the problems of an answer (at most two reasons). */
export function feedbackText(problems: readonly AnswerProblem[], reportTool?: string): string {
  return problems.map((problem) => reasonText(problem, reportTool)).join(" ");
}

/** The failure reason of a run whose answers kept having this problem. */
export function failureReasonOf(problem: AnswerProblem): AgentFailureReason {
  switch (problem.kind) {
    case "truncated":
      return "truncated_answer";
    case "empty":
      return "empty_answer";
    case "report_invalid":
      return "final_report_invalid";
    case "report_missing":
      return "final_report_missing";
    case "meta_missing":
      return "final_meta_missing";
    case "tools_unavailable":
      return "tool_calls_in_final_turn";
  }
}

/**
 * The reasons of the feedback entry at `entryId` when it is one, by problem kind (feedback
 * stored before reasons were recorded contributes nothing and is merely replaced).
 */
function earlierReasons(
  session: Session,
  entryId: string | null,
): Map<AnswerProblemKind, string> | undefined {
  const entry = entryId === null ? undefined : session.getEntry(entryId);
  if (!isArborEntry(entry, ANSWER_FEEDBACK_CUSTOM_TYPE)) return undefined;
  const reasons = new Map<AnswerProblemKind, string>();
  const details = readArborEntry(entry, ANSWER_FEEDBACK_CUSTOM_TYPE);
  const texts = details?.reasons ?? [];
  details?.problems.forEach((word, index) => {
    const kind = answerProblemKindSchema.safeParse(word);
    const text = texts[index];
    if (kind.success && text !== undefined) reasons.set(kind.data, text);
  });
  return reasons;
}

/**
 * Takes a rejected answer off the path (it stays in the tree as a sibling: the leaf moves
 * back to its parent) and appends the hidden feedback message the retried request will
 * carry. When the rejected answer itself followed a feedback message (a second rejection
 * in a row), that message leaves the path too and the new one carries the reasons of both,
 * one per kind (the newest wording wins), so the model sees one feedback message per
 * attempt and never the same reason twice.
 * @returns the id of the feedback entry
 */
export async function persistRejection(
  session: Session,
  rejectedEntryId: string,
  problems: readonly AnswerProblem[],
  reportTool: string | undefined,
): Promise<string> {
  const [first] = problems;
  if (first?.kind === "meta_missing" && first.keep) {
    // A valid report stays on the path with its calls answered; only the metadata is asked for.
    await persistKeptReport(session, first.keep, reportTool);
    const text = reasonText(first, reportTool);
    const details: AnswerFeedbackDetails = {
      problems: [first.kind],
      reasons: [text],
      rejectedEntryId,
    };
    return session.appendCustomMessageEntry(ANSWER_FEEDBACK_CUSTOM_TYPE, text, false, details);
  }
  let parentId = session.getEntry(rejectedEntryId)?.parentId ?? null;
  const earlier = earlierReasons(session, parentId);
  if (earlier && parentId !== null) parentId = session.getEntry(parentId)?.parentId ?? null;
  const reasons = earlier ?? new Map<AnswerProblemKind, string>();
  for (const problem of problems) {
    reasons.delete(problem.kind);
    reasons.set(problem.kind, reasonText(problem, reportTool));
  }
  const kinds = [...reasons.keys()].sort((a, b) => IMPORTANCE.indexOf(a) - IMPORTANCE.indexOf(b));
  const texts = kinds.map((kind) => reasons.get(kind) as string);
  if (parentId === null) await session.resetLeaf();
  else await session.branch(parentId);
  const details: AnswerFeedbackDetails = { problems: kinds, reasons: texts, rejectedEntryId };
  return session.appendCustomMessageEntry(
    ANSWER_FEEDBACK_CUSTOM_TYPE,
    texts.join(" "),
    false,
    details,
  );
}
