import type {
  AgentMessage,
  BranchSummaryEntry,
  CompactionEntry,
  CustomMessageEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionEntry,
  ThinkingLevelChangeEntry,
} from "../format/entries.js";
import type { Session } from "../session.js";
import { contentMarkdown, fenced, quoted, resultText } from "./markdown-blocks.js";

/** What {@link exportMarkdown} reads of a session: an open `Session` has all of it. */
export type MarkdownSource = Pick<
  Session,
  "getHeader" | "getBranch" | "getLeafId" | "getEntries" | "getChildren" | "getTitle"
>;

/** Options of {@link exportMarkdown}. */
export interface MarkdownExportOptions {
  /** Every branch, each under its own heading after the current path. Default false. */
  allBranches?: boolean;
  /** The path to write (default: the session's leaf). */
  leafId?: string;
}

/**
 * A readable Markdown transcript of a session: a title and facts (id, folder, start, the
 * tool it was imported from), then the conversation of one path: user and assistant
 * messages, thinking folded away, tool calls with their arguments and tool results in code
 * blocks, compactions and model changes. With `allBranches`, each other branch follows
 * under a heading naming where it forks, with only the part after the fork. Message text
 * is written as it is (it is Markdown already); render untrusted sessions with raw HTML off.
 * @example
 * await writeFile("session.md", exportMarkdown(session, { allBranches: true }));
 */
export function exportMarkdown(
  session: MarkdownSource,
  options: MarkdownExportOptions = {},
): string {
  const header = session.getHeader() as ReturnType<MarkdownSource["getHeader"]> & {
    importedFrom?: { tool?: string; path?: string };
  };
  const parts = [`# ${session.getTitle() ?? `Session ${header.id}`}`];
  const facts = [`- Session: \`${header.id}\``, `- Started: ${header.timestamp}`];
  if (header.cwd) facts.push(`- Folder: \`${header.cwd}\``);
  if (header.parentSession) facts.push(`- Continues: \`${header.parentSession}\``);
  if (header.importedFrom?.tool) {
    facts.push(
      `- Imported from ${header.importedFrom.tool}: \`${header.importedFrom.path ?? ""}\``,
    );
  }
  parts.push(facts.join("\n"));
  const leafId = options.leafId ?? session.getLeafId();
  const mainPath = session.getBranch(leafId);
  const printed = new Set(mainPath.map((e) => e.id));
  if (options.allBranches) parts.push("## Current branch");
  parts.push(...mainPath.map(entryMarkdown).filter((p) => p !== ""));
  if (options.allBranches) {
    const leaves = session
      .getEntries()
      .filter(
        (e) =>
          isTreeEntry(e) &&
          !printed.has(e.id) &&
          session.getChildren(e.id).every((c) => !isTreeEntry(c)),
      );
    let n = 1;
    for (const leaf of leaves) {
      const path = session.getBranch(leaf.id);
      const fork = path.findLastIndex((e) => printed.has(e.id));
      const rest = path.slice(fork + 1);
      if (rest.length === 0) continue;
      n++;
      const forkId = fork >= 0 ? path[fork]?.id : undefined;
      parts.push(`## Branch ${n}${forkId ? ` (forks after \`${forkId}\`)` : " (a separate root)"}`);
      parts.push(...rest.map(entryMarkdown).filter((p) => p !== ""));
      for (const entry of rest) printed.add(entry.id);
    }
  }
  return `${parts.join("\n\n")}\n`;
}

/** Entries that take part in the tree (pointers and labels do not). */
function isTreeEntry(entry: SessionEntry): boolean {
  return entry.type !== "leaf" && entry.type !== "label";
}

function entryMarkdown(entry: SessionEntry): string {
  switch (entry.type) {
    case "message":
      return messageMarkdown((entry as MessageEntry).message);
    case "compaction":
      return `### Compaction\n\n${quoted((entry as CompactionEntry).summary)}`;
    case "branch_summary":
      return `### Summary of a branch left\n\n${quoted((entry as BranchSummaryEntry).summary)}`;
    case "model_change": {
      const change = entry as ModelChangeEntry;
      return `*Model: ${change.provider}/${change.modelId}*`;
    }
    case "thinking_level_change":
      return `*Thinking level: ${(entry as ThinkingLevelChangeEntry).thinkingLevel}*`;
    case "custom_message": {
      const custom = entry as CustomMessageEntry;
      return `### ${custom.customType}\n\n${contentMarkdown(custom.content)}`;
    }
    default:
      return "";
  }
}

function messageMarkdown(message: AgentMessage): string {
  const m = message as AgentMessage & Record<string, unknown>;
  switch (message.role) {
    case "user":
      return `### User\n\n${contentMarkdown(message.content)}`;
    case "assistant": {
      const model = typeof m.model === "string" ? ` (${m.model})` : "";
      const error = typeof m.errorMessage === "string" ? `\n\n**Error:** ${m.errorMessage}` : "";
      return `### Assistant${model}\n\n${contentMarkdown(message.content)}${error}`;
    }
    case "toolResult": {
      const failed = m.isError === true ? " — error" : "";
      return `#### Tool result: \`${String(m.toolName ?? "")}\` (${String(m.toolCallId ?? "")})${failed}\n\n${fenced(resultText(message.content))}`;
    }
    default:
      return `### ${message.role}\n\n${contentMarkdown(message.content)}`;
  }
}
