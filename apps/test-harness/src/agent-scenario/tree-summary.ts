import type { Session, SessionEntry } from "@arbor/session-store";

/** A session tree reduced to what agent scenarios assert. */
export interface TreeSummary {
  /** Labels of the active path, root to leaf (see `expectedTreeSchema.path`). */
  path: string[];
  /** Aborted assistant answers that are not on the active path. */
  abortedSiblings: number;
  /** Every custom entry in file order. */
  custom: Array<{ customType: string; data: unknown }>;
  /** Every `ttsr_injection` record in file order. */
  ttsrInjections: unknown[];
  entries: number;
  /** Text of the last assistant answer on the path. */
  lastAnswer: string;
  /** Text of each tool result on the path, in order. */
  toolResults: string[];
  /** The session's title: set, or made from the first user message. */
  title: string | undefined;
}

interface LooseMessage {
  role?: string;
  stopReason?: string;
  isError?: boolean;
  content?: unknown;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: unknown }) =>
      part.type === "text" && typeof part.text === "string" ? part.text : "",
    )
    .join("");
}

/** The label of one entry on a path: its role (and `:aborted` / `:error`), or its type. */
export function entryLabel(entry: SessionEntry): string {
  const record = entry as SessionEntry & { message?: LooseMessage; customType?: string };
  if (entry.type === "message") {
    const message = record.message ?? {};
    if (message.role === "assistant" && message.stopReason === "aborted")
      return "assistant:aborted";
    if (message.role === "toolResult" && message.isError) return "toolResult:error";
    return message.role ?? "message";
  }
  if (entry.type === "custom" || entry.type === "custom_message") {
    return `${entry.type}:${record.customType ?? ""}`;
  }
  return entry.type;
}

/** Reduces a session to a {@link TreeSummary}. */
export function summarizeTree(session: Session): TreeSummary {
  const entries = session.getEntries();
  const branch = session.getBranch();
  const onPath = new Set(branch.map((entry) => entry.id));
  let abortedSiblings = 0;
  const custom: TreeSummary["custom"] = [];
  const ttsrInjections: unknown[] = [];
  for (const entry of entries) {
    const record = entry as SessionEntry & {
      message?: LooseMessage;
      customType?: string;
      data?: unknown;
      injectedRules?: unknown[];
    };
    if (entryLabel(entry) === "assistant:aborted" && !onPath.has(entry.id)) abortedSiblings++;
    if (entry.type === "custom")
      custom.push({ customType: record.customType ?? "", data: record.data });
    if (entry.type === "ttsr_injection") ttsrInjections.push(...(record.injectedRules ?? []));
  }
  const messages = branch.flatMap((entry) => {
    const message = (entry as { message?: LooseMessage }).message;
    return entry.type === "message" && message ? [message] : [];
  });
  const lastAnswer = messages.filter((message) => message.role === "assistant").at(-1);
  return {
    path: branch.map(entryLabel),
    abortedSiblings,
    custom,
    ttsrInjections,
    entries: entries.length,
    lastAnswer: textOf(lastAnswer?.content),
    toolResults: messages
      .filter((message) => message.role === "toolResult")
      .map((message) => textOf(message.content)),
    title: session.getTitle(),
  };
}
