import { isAbsolute, resolve } from "node:path";
import type {
  ToolCallContent,
  ToolCallLocation,
  ToolKind,
} from "@agentclientprotocol/sdk/unstable";

/** How an editor shows one tool call: its title, kind, the files it touches and its diff. */
export interface ToolCallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  /** The change an edit or write makes, as an ACP diff (empty for other tools). */
  content: ToolCallContent[];
}

const KINDS: Readonly<Record<string, ToolKind>> = {
  read: "read",
  read_tool_output: "read",
  ls: "read",
  write: "edit",
  edit: "edit",
  bash: "execute",
  grep: "search",
  find: "search",
};

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * The view of a tool call, from its name and arguments alone, so a live run and a replay
 * of the stored session show the same thing. Paths are made absolute against the session's
 * working directory, as ACP asks.
 */
export function toolCallView(name: string, args: unknown, cwd: string): ToolCallView {
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  const text = (key: string) => (typeof record[key] === "string" ? (record[key] as string) : "");
  const path = text("path");
  const absolute = path === "" ? undefined : isAbsolute(path) ? path : resolve(cwd, path);
  const kind = KINDS[name] ?? "other";
  const locations: ToolCallLocation[] = absolute
    ? [
        {
          path: absolute,
          ...(typeof record.offset === "number" ? { line: record.offset } : {}),
        },
      ]
    : [];
  if (name === "bash") {
    return { title: clip(text("command"), 200) || "bash", kind, locations: [], content: [] };
  }
  if (name === "write" && absolute) {
    return {
      title: `Write ${path}`,
      kind,
      locations,
      content: [{ type: "diff", path: absolute, oldText: null, newText: text("content") }],
    };
  }
  if (name === "edit" && absolute) {
    return {
      title: `Edit ${path}`,
      kind,
      locations,
      content: [
        { type: "diff", path: absolute, oldText: text("oldText"), newText: text("newText") },
      ],
    };
  }
  if (name === "read" && path) return { title: `Read ${path}`, kind, locations, content: [] };
  if ((name === "grep" || name === "find") && text("pattern")) {
    return { title: `${name} ${clip(text("pattern"), 120)}`, kind, locations, content: [] };
  }
  if (name === "ls") return { title: `List ${path || "."}`, kind, locations, content: [] };
  return { title: name, kind, locations, content: [] };
}

/** A tool's result as ACP content: its text, kept whole up to a cap. */
export function resultContent(text: string): ToolCallContent[] {
  if (text === "") return [];
  const shown = text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n…` : text;
  return [{ type: "content", content: { type: "text", text: shown } }];
}

/** The most of one tool result sent to the editor, in characters. */
export const MAX_RESULT_CHARS = 64_000;
