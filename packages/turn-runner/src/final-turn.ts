import type { FinalTurnReason } from "./contracts/index.js";

export { FINAL_TURN_CUSTOM_TYPE } from "@arbor/session-store";

export type { FinalTurnReason };

/** The hidden instruction that opens a forced final turn. */
export function finalTurnInstruction(
  reason: FinalTurnReason,
  reportTool?: string,
  metaTool?: string,
  keptTools: readonly string[] = [],
): string {
  const why = {
    stop: "The user asked to finish now.",
    context_limit: "The conversation has reached the model's context limit.",
    max_turns: "This is the last turn this task may use.",
  }[reason];
  const what =
    reportTool !== undefined
      ? `Call the ${reportTool} tool now with your final report, built from what you already know; no other tool is available.`
      : "Answer now with what you already know; no tool is available any more.";
  const kept =
    keptTools.length === 0
      ? ""
      : ` Instead of answering, you may still call ${keptTools.join(" or ")}.`;
  const meta =
    metaTool === undefined
      ? ""
      : ` Call the ${metaTool} tool in the same answer with the metadata this task requires.`;
  return `${why} ${what}${kept}${meta}`;
}
