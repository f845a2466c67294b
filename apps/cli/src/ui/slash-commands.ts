import { relative, resolve } from "node:path";
import { exportSessionToHtml, snapshotOfSession } from "@arbor/html-export";
import type { RewindTarget } from "@arbor/orchestration";
import { isEntryOfType } from "@arbor/session-store";
import { CliError } from "../cli-error.js";
import { contextSummary } from "../context/index.js";
import { safeFileName, writeExportFile } from "../export/index.js";
import { mcpSummaryText } from "../mcp/index.js";
import type { ChatController } from "./chat-controller.js";

/** A built-in slash command as `/help` lists it. */
export interface SlashCommandInfo {
  name: string;
  usage: string;
  description: string;
}

/** The built-in commands, in the order `/help` lists them. */
export const BUILTIN_COMMANDS: readonly SlashCommandInfo[] = [
  {
    name: "tree",
    usage: "/tree",
    description:
      "browse the whole session tree and move to any entry; Enter on a child run opens its session",
  },
  {
    name: "rewind",
    usage: "/rewind [entry] [--code|--conversation|--both] [--dry-run]",
    description:
      "go back to an entry, the files too (no entry: pick one in the tree; f there brings the files back)",
  },
  {
    name: "diff",
    usage: "/diff [entry]",
    description: "the files changed since an entry (default: since this turn's prompt)",
  },
  {
    name: "fork",
    usage: "/fork",
    description: "copy the current path into a new session and continue there",
  },
  {
    name: "label",
    usage: "/label [text]",
    description: "label the latest message (no text: remove the label)",
  },
  { name: "title", usage: "/title [text]", description: "show or set the session title" },
  {
    name: "compact",
    usage: "/compact [instructions]",
    description: "summarize older turns to free context",
  },
  { name: "model", usage: "/model [id | provider/id]", description: "list or change the model" },
  { name: "mcp", usage: "/mcp", description: "the MCP servers of the config and their tools" },
  {
    name: "thinking",
    usage: "/thinking [off|minimal|low|medium|high]",
    description: "show or set the reasoning level",
  },
  {
    name: "export",
    usage: "/export [--force] [path]",
    description: "write the session as one HTML file (--force: overwrite an existing one)",
  },
  { name: "sessions", usage: "/sessions", description: "resume another session of this directory" },
  {
    name: "rules",
    usage: "/rules",
    description: "the loaded stream rules and how often they matched",
  },
  {
    name: "context",
    usage: "/context",
    description: "the AGENTS.md / CLAUDE.md files given to the model",
  },
  { name: "help", usage: "/help", description: "this list" },
  { name: "quit", usage: "/quit", description: "leave (Ctrl+C twice does too)" },
];

/** What the app does after a command: open a view, prefill the input, or quit. */
export interface SlashOutcome {
  view?: "tree" | "sessions";
  quit?: boolean;
}

/** Splits `/name rest of line` into the name and its argument text. */
export function parseSlash(line: string): { name: string; args: string } {
  const match = /^\/(\S+)\s*([\s\S]*)$/u.exec(line.trim());
  return { name: match?.[1] ?? "", args: (match?.[2] ?? "").trim() };
}

function helpText(controller: ChatController): string {
  const lines = BUILTIN_COMMANDS.map(
    (command) => `${command.usage.padEnd(40)} ${command.description}`,
  );
  for (const command of controller.extensionCommands()) {
    lines.push(
      `${`/${command.name}`.padEnd(40)} ${command.description} (${command.extensionName})`,
    );
  }
  lines.push(
    "",
    "Enter sends · a line ending in \\ continues on the next line · ↑/↓ history · Esc aborts an answer · Ctrl+C twice quits",
  );
  return lines.join("\n");
}

function rulesText(controller: ChatController, cwd: string): string {
  const { rules, warnings } = controller.rules;
  if (rules.length === 0 && warnings.length === 0) {
    return "No stream rules are loaded. Put rules in .arbor/rules/*.md (see the ttsr docs).";
  }
  const lines = rules.map((rule) => {
    const hits = controller.ruleHits.get(rule.name) ?? 0;
    return `${rule.name}  ${hits} hit${hits === 1 ? "" : "s"}  ${rule.path ? relative(cwd, rule.path) : "(inline)"}  when ${rule.condition.join(" | ")}`;
  });
  for (const warning of warnings)
    lines.push(`skipped ${relative(cwd, warning.file)}: ${warning.reason}`);
  return lines.join("\n");
}

/**
 * Runs a slash command line. Failures become error notices in the transcript; nothing
 * thrown here reaches the terminal as a stack trace.
 */
export async function runSlashCommand(
  controller: ChatController,
  line: string,
  cwd: string,
): Promise<SlashOutcome> {
  const { name, args } = parseSlash(line);
  const session = controller.currentSession;
  try {
    switch (name) {
      case "help":
        controller.notify(helpText(controller));
        return {};
      case "quit":
      case "exit":
        return { quit: true };
      case "tree":
        return { view: "tree" };
      case "sessions":
        return { view: "sessions" };
      case "rewind": {
        const rewind = parseRewindArgs(args);
        if (rewind.entryId === undefined) return { view: "tree" };
        await controller.rewind(rewind.entryId, rewind.to, rewind.dryRun);
        return {};
      }
      case "diff":
        await controller.diff(args || undefined);
        return {};
      case "rules":
        controller.notify(rulesText(controller, cwd));
        return {};
      case "mcp":
        controller.notify(mcpSummaryText(controller.mcpServers));
        return {};
      case "context":
        controller.notify(contextText(controller, cwd));
        return {};
      case "title":
        if (args) {
          await session.setTitle(args);
          controller.refresh();
        }
        controller.notify(`Title: ${session.getTitle() ?? "(none yet)"}`);
        return {};
      case "label": {
        // The latest message: titles, labels and other bookkeeping entries are not what users mean.
        const target = [...session.getBranch()]
          .reverse()
          .find((entry) => isEntryOfType(entry, "message"));
        if (!target) {
          controller.notify("Nothing to label yet: send a message first.", "warning");
          return {};
        }
        await session.appendLabelChange(target.id, args || undefined);
        controller.notify(
          args ? `Labelled ${target.id} "${args}".` : `Removed the label of ${target.id}.`,
        );
        return {};
      }
      case "fork": {
        const forked = await controller.fork();
        if (!forked) controller.notify("Nothing to fork yet: send a message first.", "warning");
        else controller.notify(`Forked into a new session: ${forked.location}`);
        return {};
      }
      case "compact":
        await controller.compact(args || undefined);
        return {};
      case "model":
        if (!args) {
          controller.notify(controller.modelList());
          return {};
        }
        await controller.setModel(args);
        controller.notify(`Model: ${controller.getState().modelLabel}`);
        return {};
      case "thinking":
        if (args) await controller.setThinking(args);
        controller.notify(`Thinking: ${controller.getState().thinking}`);
        return {};
      case "export": {
        const { force, path } = parseExportArgs(args);
        // The default name comes from the session's id, so it is made a plain file name.
        const out = resolve(cwd, path || `${safeFileName(session.id)}.html`);
        await session.flush();
        await writeExportFile(out, exportSessionToHtml(snapshotOfSession(session)), {
          force,
          forceHint: `/export --force ${path || ""}`.trim(),
        });
        controller.notify(`Exported to ${out}`);
        return {};
      }
      default:
        return await runExtensionCommand(controller, name, args);
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = CliError.isInstance(error) && error.hint ? `\n${error.hint}` : "";
    controller.notify(`/${name}: ${message}${hint}`, "error");
    return {};
  }
}

/** `/rewind [entry] [--code|--conversation|--both] [--dry-run]`: the entry (maybe none) and what to move. */
export function parseRewindArgs(args: string): {
  entryId: string | undefined;
  to: RewindTarget;
  dryRun: boolean;
} {
  let to: RewindTarget = "both";
  let dryRun = false;
  let entryId: string | undefined;
  for (const word of args.split(/\s+/u).filter((part) => part !== "")) {
    if (word === "--code" || word === "--conversation" || word === "--both") {
      to = word.slice(2) as RewindTarget;
    } else if (word === "--dry-run") dryRun = true;
    else entryId = word;
  }
  return { entryId, to, dryRun };
}

/** `/export [--force] [path]`: whether to overwrite, and the path the user gave (maybe ""). */
export function parseExportArgs(args: string): { force: boolean; path: string } {
  const match = /^(?:--force|-f)(?:\s+|$)([\s\S]*)$/u.exec(args);
  return match ? { force: true, path: (match[1] ?? "").trim() } : { force: false, path: args };
}

async function runExtensionCommand(
  controller: ChatController,
  name: string,
  args: string,
): Promise<SlashOutcome> {
  // A command may return the text of the next prompt: the controller sends and shows it.
  const outcome = await controller.runCommand(name, args);
  if (outcome.status === "unknown_command") {
    controller.notify(`There is no command /${name}. Type /help to see the commands.`, "warning");
  } else if (outcome.status === "failed") {
    controller.notify(`/${name} failed: ${outcome.error}`, "error");
  } else if (outcome.prompt === undefined) {
    controller.reload();
  }
  return {};
}

/** What `/context` shows: the whole system prompt sent, then the instruction files (last, in view). */
function contextText(controller: ChatController, cwd: string): string {
  const files = contextSummary(controller.projectContext, cwd);
  const prompt = controller.systemPrompt;
  return prompt === undefined
    ? `${files}

No system prompt: the agent file's agents carry their own.`
    : `${files}

The system prompt sent with every request:
${prompt}`;
}
