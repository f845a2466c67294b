/*
 * `/fresh [focus]`: summarize and start fresh. When a conversation has grown long, it
 * writes a short summary of the current branch (what was asked, the last answer, the
 * files touched), leaves for a new empty session, and sends the summary there as the
 * first prompt, so the work goes on with a small context. The old session stays as it
 * was. A focus (`/fresh the failing test`) is added to the summary.
 *
 * Load it with `arbor --extension examples/extensions/fresh-start.ts`.
 */
import type { ExtensionAPI, ReadonlySessionView } from "@arbor/extensions-api";

/** At most this many characters of the last answer are carried over. */
const MAX_ANSWER_CHARS = 1500;

export default function freshStart(arbor: ExtensionAPI): void {
  arbor.registerCommand("fresh", {
    description: "Summarize this conversation and continue in a new session: /fresh [focus]",
    handler: async (args, ctx) => {
      await ctx.waitForIdle();
      const summary = summarize(ctx.session, args);
      if (summary === undefined) {
        ctx.ui.notify("Nothing to summarize yet", "warning");
        return undefined;
      }
      const previous = ctx.session.getHeader().id;
      const { sessionId } = await ctx.newSession();
      ctx.ui.notify(`Started fresh in ${sessionId}, from ${previous}`);
      return summary;
    },
  });
}

/** The first prompt of the new session, or `undefined` when the branch has no exchange. */
export function summarize(session: ReadonlySessionView, focus: string): string | undefined {
  const requests: string[] = [];
  let lastAnswer = "";
  for (const entry of session.getBranch()) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role?: unknown; content?: unknown };
    if (message.role === "user") requests.push(textOf(message.content));
    if (message.role === "assistant") lastAnswer = textOf(message.content) || lastAnswer;
  }
  if (requests.length === 0) return undefined;
  const answer =
    lastAnswer.length > MAX_ANSWER_CHARS ? `${lastAnswer.slice(0, MAX_ANSWER_CHARS)}…` : lastAnswer;
  return [
    "We are continuing earlier work in a fresh session. Summary of it:",
    "",
    "What I asked for:",
    ...requests.map((request) => `- ${oneLine(request)}`),
    ...(answer ? ["", "Your last answer:", answer] : []),
    ...(focus ? ["", `Focus now on: ${focus}`] : []),
  ].join("\n");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" && typeof part.text === "string" ? [part.text] : [],
    )
    .join("");
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
