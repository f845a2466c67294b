import type { AgentMessage } from "@arbor/session-store";

/** A command the summarized conversation ran, with how it ended. */
export interface TrailCommand {
  command: string;
  /** `exit 0`, `exit 2`, `timed out`, `stopped`, `killed by SIGKILL`, or `unknown`. */
  ending: string;
}

/**
 * What a compaction summary carries beside the model's words, read from the tool calls
 * (never from the model's memory): files read, written and edited, commands with their
 * endings, open tasks, and lines extensions added. Kept in the compaction's `details`, so
 * the next compaction carries it on.
 */
export interface CompactionTrail {
  readFiles: string[];
  /** Files a `write`-like tool wrote. */
  writtenFiles: string[];
  /** Files an `edit`-like tool changed. */
  editedFiles: string[];
  /** Commands, oldest first; at most {@link MAX_TRAIL_COMMANDS}, the newest kept. */
  commands: TrailCommand[];
  /** The task tool's items not done yet, as `[state] text`. */
  openTasks: string[];
  /** Lines a `beforeCompact` hook added. */
  notes: string[];
}

/** The most commands a trail keeps (the newest): a long session's trail stays small. */
export const MAX_TRAIL_COMMANDS = 40;
/** The longest command kept in a trail, in characters. */
const MAX_COMMAND_CHARS = 200;

const WRITE_TOOLS = new Set(["write", "write_file", "create_file"]);
const EDIT_TOOLS = new Set(["edit", "edit_file", "str_replace", "multi_edit"]);
const READ_TOOLS = new Set(["read", "read_file", "view", "cat"]);
const COMMAND_TOOLS = new Set(["bash", "shell", "exec"]);
const PATH_ARGUMENTS = ["path", "file_path", "filePath", "file"] as const;

function stringField(args: unknown, keys: readonly string[]): string | undefined {
  if (!args || typeof args !== "object") return undefined;
  for (const key of keys) {
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

function commandList(value: unknown): TrailCommand[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    if (!item || typeof item !== "object") return [];
    const { command, ending } = item as Record<string, unknown>;
    return typeof command === "string" && typeof ending === "string" ? [{ command, ending }] : [];
  });
}

function resultText(message: AgentMessage): string {
  if (typeof message.content === "string") return message.content;
  return (message.content ?? [])
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("\n");
}

/** How a command ended, read from the last line the bash tool writes after its output. */
export function commandEndingOf(output: string): string {
  const exit = /\[exit code (-?\d+|null)\]\s*$/u.exec(output);
  if (exit) return `exit ${exit[1]}`;
  if (/\[timed out after [^\]]*\]\s*$/u.test(output)) return "timed out";
  if (/\[stopped by the user[^\]]*\]\s*$/u.test(output)) return "stopped";
  const killed = /\[killed by (\w+)\]\s*$/u.exec(output);
  if (killed) return `killed by ${killed[1]}`;
  return "unknown";
}

function oneLine(command: string): string {
  const flat = command.replace(/\s*\n\s*/gu, " ⏎ ").trim();
  return flat.length > MAX_COMMAND_CHARS ? `${flat.slice(0, MAX_COMMAND_CHARS - 1)}…` : flat;
}

/**
 * Collects the trail of `messages` (tool calls and their results), on top of a previous
 * compaction's `details` (so the trail survives repeated compaction).
 * @param options.carried - the previous compaction's `details`, if any
 * @param options.openTasks - the task list as it is now (open items only)
 */
export function collectCompactionTrail(
  messages: readonly AgentMessage[],
  options: { carried?: unknown; openTasks?: readonly string[] } = {},
): CompactionTrail {
  const carried =
    options.carried && typeof options.carried === "object"
      ? (options.carried as Record<string, unknown>)
      : {};
  const read = new Set(stringList(carried.readFiles));
  const written = new Set(stringList(carried.writtenFiles));
  const edited = new Set(stringList(carried.editedFiles));
  // pi's details name modified files only: they count as edited.
  for (const file of stringList(carried.modifiedFiles)) {
    if (!written.has(file)) edited.add(file);
  }
  const commands = commandList(carried.commands);
  const pending = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const block of message.content) {
        if (block.type !== "toolCall" || typeof block.name !== "string") continue;
        const name = block.name;
        if (COMMAND_TOOLS.has(name)) {
          const command = stringField(block.arguments, ["command", "cmd"]);
          if (command !== undefined && typeof block.id === "string") {
            pending.set(block.id, oneLine(command));
          }
          continue;
        }
        const file = stringField(block.arguments, PATH_ARGUMENTS);
        if (file === undefined) continue;
        if (WRITE_TOOLS.has(name)) written.add(file);
        else if (EDIT_TOOLS.has(name)) edited.add(file);
        else if (READ_TOOLS.has(name)) read.add(file);
      }
    } else if (message.role === "toolResult") {
      const id = (message as { toolCallId?: unknown }).toolCallId;
      const command = typeof id === "string" ? pending.get(id) : undefined;
      if (command === undefined || typeof id !== "string") continue;
      pending.delete(id);
      commands.push({ command, ending: commandEndingOf(resultText(message)) });
    }
  }
  for (const command of pending.values()) commands.push({ command, ending: "unknown" });
  const changed = new Set([...written, ...edited]);
  return {
    readFiles: [...read].filter((file) => !changed.has(file)).sort(),
    writtenFiles: [...written].sort(),
    editedFiles: [...edited].filter((file) => !written.has(file)).sort(),
    commands: commands.slice(-MAX_TRAIL_COMMANDS),
    openTasks: [...(options.openTasks ?? [])],
    notes: [],
  };
}

const SECTIONS = [
  "read-files",
  "modified-files",
  "written-files",
  "edited-files",
  "commands",
  "open-tasks",
  "notes",
] as const;

/**
 * The summary with its trail appended as tagged sections (`<read-files>`, `<written-files>`,
 * `<edited-files>`, `<commands>`, `<open-tasks>`, `<notes>`), so the model sees them.
 */
export function withTrail(summary: string, trail: CompactionTrail): string {
  const sections: string[] = [];
  const add = (tag: (typeof SECTIONS)[number], lines: readonly string[]) => {
    if (lines.length > 0) sections.push(`<${tag}>\n${lines.join("\n")}\n</${tag}>`);
  };
  add("read-files", trail.readFiles);
  add("written-files", trail.writtenFiles);
  add("edited-files", trail.editedFiles);
  add(
    "commands",
    trail.commands.map((command) => `${command.command}  → ${command.ending}`),
  );
  add("open-tasks", trail.openTasks);
  add("notes", trail.notes);
  return sections.length === 0 ? summary : `${summary}\n\n${sections.join("\n")}`;
}

/** Removes the sections {@link withTrail} appended, so a summary can be updated. */
export function withoutTrail(summary: string): string {
  let text = summary;
  for (const tag of SECTIONS) {
    text = text.replace(new RegExp(`\\n*<${tag}>\\n[\\s\\S]*?\\n</${tag}>`, "gu"), "");
  }
  return text.trimEnd();
}

/**
 * The compaction's `details`: pi's `readFiles`/`modifiedFiles` (so pi reads them) and the
 * rest of the trail.
 */
export function trailDetails(trail: CompactionTrail): Record<string, unknown> {
  return {
    readFiles: trail.readFiles,
    modifiedFiles: [...new Set([...trail.writtenFiles, ...trail.editedFiles])].sort(),
    writtenFiles: trail.writtenFiles,
    editedFiles: trail.editedFiles,
    commands: trail.commands,
    ...(trail.openTasks.length > 0 ? { openTasks: trail.openTasks } : {}),
    ...(trail.notes.length > 0 ? { notes: trail.notes } : {}),
  };
}
