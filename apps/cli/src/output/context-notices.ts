import type { RunEvent } from "@arbor/orchestration";

/** How serious a context notice is: a compaction is news, a forced final turn a warning. */
export type ContextNoticeLevel = "info" | "warning";

/** A line telling the user what happened to the context, and how serious it is. */
export interface ContextNotice {
  level: ContextNoticeLevel;
  text: string;
}

const thousands = (tokens: number) => tokens.toLocaleString("en-US");

/**
 * The notice a context event deserves (a compaction, the guard's moves), or undefined:
 * the user always learns why an answer came without tools.
 */
export function contextNoticeFor(event: RunEvent): ContextNotice | undefined {
  if (event.type === "compaction") {
    if (event.status === "compacted") {
      const tokens =
        event.tokensBefore === undefined ? "" : ` (${thousands(event.tokensBefore)} tokens)`;
      return { level: "info", text: `Compacted the earlier conversation${tokens} into a summary.` };
    }
    if (event.status === "failed") {
      return { level: "warning", text: `Compaction failed: ${event.message ?? "unknown error"}` };
    }
    return undefined;
  }
  if (event.type === "context_guard") {
    const size = `about ${thousands(event.estimate)} tokens, limit ${thousands(event.limit)}`;
    switch (event.action) {
      case "switch_target":
        return {
          level: "info",
          text: `The context (${size}) moved to ${event.target.provider}/${event.target.model}, whose window takes it.`,
        };
      case "force_final":
        return {
          level: "warning",
          text: `Context limit reached (${size}) and compaction could not free enough: this answer is the last of the prompt, without tools. Start a new session, or compact with instructions of what to keep.`,
        };
      case "sent_over_limit":
        return {
          level: "warning",
          text: `The request was sent over the context limit (${size}); the provider may refuse it.`,
        };
    }
  }
  return undefined;
}
