import type { AgentMessage } from "../format/entries.js";

/**
 * The files a stretch of conversation read and modified, as stored in a compaction's or
 * branch summary's `details` (pi's field names). A file both read and modified is listed
 * as modified only. Both lists are sorted.
 */
export interface FileOperations {
  readFiles: string[];
  modifiedFiles: string[];
}

/** Which tool names read files and which modify them. */
export interface FileToolNames {
  read: readonly string[];
  modify: readonly string[];
}

/** The tool names of pi, Arbor's examples and common coding agents. */
export const DEFAULT_FILE_TOOL_NAMES: FileToolNames = {
  read: ["read", "read_file", "view", "cat"],
  modify: ["write", "edit", "write_file", "edit_file", "create_file", "str_replace", "multi_edit"],
};

const PATH_ARGUMENTS = ["path", "file_path", "filePath", "file"] as const;

function pathArgument(args: unknown): string | undefined {
  if (!args || typeof args !== "object") return undefined;
  for (const key of PATH_ARGUMENTS) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string")
    : [];
}

/**
 * Collects the files read and modified by the tool calls in `messages`, plus those a
 * previous summary carried forward in its `details` (so the lists survive repeated
 * compaction).
 * @param messages - context messages; tool calls are read from assistant messages
 * @param options.carried - `details` of earlier compactions or branch summaries
 * @param options.toolNames - which tools read and modify; default {@link DEFAULT_FILE_TOOL_NAMES}
 */
export function collectFileOperations(
  messages: readonly AgentMessage[],
  options: { carried?: readonly unknown[]; toolNames?: FileToolNames } = {},
): FileOperations {
  const names = options.toolNames ?? DEFAULT_FILE_TOOL_NAMES;
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const details of options.carried ?? []) {
    if (!details || typeof details !== "object") continue;
    for (const file of stringList((details as Record<string, unknown>).readFiles)) read.add(file);
    for (const file of stringList((details as Record<string, unknown>).modifiedFiles)) {
      modified.add(file);
    }
  }
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type !== "toolCall" || typeof block.name !== "string") continue;
      const file = pathArgument(block.arguments);
      if (file === undefined) continue;
      if (names.modify.includes(block.name)) modified.add(file);
      else if (names.read.includes(block.name)) read.add(file);
    }
  }
  return {
    readFiles: [...read].filter((file) => !modified.has(file)).sort(),
    modifiedFiles: [...modified].sort(),
  };
}
