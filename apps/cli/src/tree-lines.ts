import {
  type AgentMessage,
  CHILD_SESSION_CUSTOM_TYPE,
  messageText,
  readArborEntry,
  type Session,
  type SessionEntry,
  type SessionTreeNode,
} from "@arbor/session-store";
import { childRunText } from "./agent-tree/child-run-text.js";
import { terminalSafe } from "./output/index.js";

/**
 * One row of a session tree laid out for a terminal. `kind`, `text` and `label` are safe to
 * print (control characters shown as escapes); `id` is the entry's id as stored, for
 * navigation: print it through {@link terminalSafe}.
 */
export interface TreeLine {
  id: string;
  /** Nesting depth: 0 for roots, +1 below each entry with more than one child. */
  depth: number;
  /**
   * The branch connectors drawn before the entry (`│  ├─ `): `├─`/`└─` where a branch
   * starts, `│` down the side of a branch that goes on below.
   */
  prefix: string;
  /** The entry's kind as the user thinks of it: `user`, `assistant`, `tool`, `summary`, … */
  kind: string;
  /** The stored entry's `type` (`message`, `custom`, `model_change`, …), for filters. */
  entryType: string;
  /** A one-line description of the entry. */
  text: string;
  label: string | undefined;
  /** On the path from the root to the leaf. */
  active: boolean;
  /** The current leaf. */
  leaf: boolean;
  /**
   * For a child run of an agent file (an `arbor.orchestration.child` entry): the child's
   * session id, and whether this entry is the newest the parent stored for it (its
   * outcome; the `running` entry before it is older).
   */
  child?: { sessionId: string; latest: boolean };
}

const ONE_LINE_LENGTH = 72;

function oneLine(text: string): string {
  const flat = text.replace(/\s+/gu, " ").trim();
  return flat.length > ONE_LINE_LENGTH ? `${flat.slice(0, ONE_LINE_LENGTH - 1)}…` : flat;
}

function toolCallsOf(message: AgentMessage): string[] {
  if (!Array.isArray(message.content)) return [];
  return message.content
    .filter((block) => block.type === "toolCall")
    .map((block) => String((block as { name?: unknown }).name ?? "tool"));
}

/** The kind and one-line text of an entry, safe to print. */
export function describeEntry(entry: SessionEntry): { kind: string; text: string } {
  const { kind, text } = describeEntryRaw(entry);
  return { kind: terminalSafe(kind), text: terminalSafe(text) };
}

function describeEntryRaw(entry: SessionEntry): { kind: string; text: string } {
  const fields = entry as SessionEntry & Record<string, unknown>;
  switch (entry.type) {
    case "message": {
      const message = fields.message as AgentMessage;
      const text = messageText(message);
      if (message.role === "assistant") {
        const calls = toolCallsOf(message);
        const stop = (message as { stopReason?: unknown }).stopReason;
        const suffix = stop === "aborted" ? " [aborted]" : "";
        const callText = calls.length > 0 ? `→ ${calls.join(", ")}` : "";
        return { kind: "assistant", text: oneLine(`${text} ${callText}`) + suffix };
      }
      if (message.role === "toolResult") {
        const toolName = String((message as { toolName?: unknown }).toolName ?? "tool");
        return { kind: "tool", text: oneLine(`${toolName}: ${text}`) };
      }
      return { kind: message.role, text: oneLine(text) };
    }
    case "compaction":
      return { kind: "compaction", text: oneLine(String(fields.summary ?? "")) };
    case "branch_summary":
      return { kind: "summary", text: oneLine(String(fields.summary ?? "")) };
    case "model_change":
      return { kind: "model", text: `${String(fields.provider)}/${String(fields.modelId)}` };
    case "thinking_level_change":
      return { kind: "thinking", text: String(fields.thinkingLevel) };
    case "session_info":
      return { kind: "title", text: oneLine(String(fields.name ?? "")) };
    case "ttsr_injection":
      return { kind: "rule", text: "stream rule injected" };
    case "custom": {
      const child = readArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE);
      if (child) {
        const { usage, ...rest } = child;
        const tokens = usage ? usage.input + usage.output : undefined;
        return {
          kind: "child",
          text: `${childRunText({ ...rest, tokens })} · session ${child.childSessionId}`,
        };
      }
      return { kind: "custom", text: String(fields.customType ?? "") };
    }
    case "custom_message":
      return { kind: "custom", text: oneLine(String(fields.customType ?? "")) };
    default:
      return { kind: entry.type, text: "" };
  }
}

/**
 * Lays out the whole tree of a session, depth first, children in file order, marking the
 * active path. Chains of single children stay at one depth so long talks do not drift right.
 */
export function layoutTree(session: Session): TreeLine[] {
  const path = session.getBranch();
  const active = new Set(path.map((entry) => entry.id));
  // Label entries are not shown; the leaf marker goes to the newest entry that is.
  const leafId = [...path].reverse().find((entry) => entry.type !== "label")?.id ?? null;
  const lines: TreeLine[] = [];
  const newestOfChild = newestChildEntries(session);
  // Iterative (a stack of what is left to show): a session nests 100,000 levels deep.
  type Pending = { node: SessionTreeNode; depth: number; prefix: string; indent: string };
  const stack: Pending[] = [];
  const pushChildren = (children: SessionTreeNode[], depth: number, indent: string): void => {
    if (children.length === 1) {
      stack.push({ node: children[0] as SessionTreeNode, depth, prefix: indent, indent });
      return;
    }
    for (let index = children.length - 1; index >= 0; index--) {
      const last = index === children.length - 1;
      stack.push({
        node: children[index] as SessionTreeNode,
        depth: depth + 1,
        prefix: `${indent}${last ? "└─ " : "├─ "}`,
        indent: `${indent}${last ? "   " : "│  "}`,
      });
    }
  };
  pushChildren(session.getTree(), 0, "");
  while (stack.length > 0) {
    const { node, depth, prefix, indent } = stack.pop() as Pending;
    const { entry } = node;
    if (entry.type !== "label") {
      lines.push({
        id: entry.id,
        depth,
        prefix,
        entryType: entry.type,
        ...describeEntry(entry),
        label: node.label === undefined ? undefined : terminalSafe(node.label),
        active: active.has(entry.id),
        leaf: entry.id === leafId,
        ...childOf(entry, newestOfChild),
      });
    }
    pushChildren(node.children, depth, indent);
  }
  return lines;
}

/** The id of the newest `arbor.orchestration.child` entry of each child session. */
function newestChildEntries(session: Session): Map<string, string> {
  const newest = new Map<string, string>();
  for (const entry of session.getEntries()) {
    const sessionId = childSessionIdOf(entry);
    if (sessionId !== undefined) newest.set(sessionId, entry.id);
  }
  return newest;
}

function childSessionIdOf(entry: SessionEntry): string | undefined {
  return readArborEntry(entry, CHILD_SESSION_CUSTOM_TYPE)?.childSessionId;
}

function childOf(
  entry: SessionEntry,
  newest: ReadonlyMap<string, string>,
): Pick<TreeLine, "child"> {
  const sessionId = childSessionIdOf(entry);
  if (sessionId === undefined) return {};
  return { child: { sessionId, latest: newest.get(sessionId) === entry.id } };
}

/** Renders tree lines as plain text, one entry per line, for `arbor sessions show`. */
export function renderTreeText(lines: readonly TreeLine[]): string {
  return lines
    .map((line) => {
      const marker = line.leaf ? "▶" : line.active ? "•" : " ";
      const label = line.label ? ` [${line.label}]` : "";
      return `${marker} ${line.prefix}${terminalSafe(line.id)} ${line.kind}${label}: ${line.text}`;
    })
    .join("\n");
}
