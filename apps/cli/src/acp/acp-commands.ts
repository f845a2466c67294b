import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import type { AgentHost } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import type { ArborConfig } from "../config/index.js";
import { configuredModelList } from "../config/index.js";
import { layoutTree, renderTreeText } from "../tree-lines.js";

/** Arbor's own slash commands, as the editor offers them. */
export const ARBOR_COMMANDS: readonly AvailableCommand[] = [
  {
    name: "tree",
    description: "Show the session tree; with an entry id, continue from that entry",
    input: { hint: "[entry id]" },
  },
  {
    name: "fork",
    description: "Copy the path to the leaf (or to an entry) into a new session",
    input: { hint: "[entry id]" },
  },
  {
    name: "label",
    description: "Label the leaf (or an entry) so the tree shows it",
    input: { hint: "[entry id] text" },
  },
  {
    name: "compact",
    description: "Summarize the conversation so far to free the context",
    input: { hint: "[instructions]" },
  },
  {
    name: "model",
    description: "List the configured models, or switch to one",
    input: { hint: "[provider/model]" },
  },
];

/** What a command works on. */
export interface CommandScope {
  host: AgentHost;
  store: SessionStore;
  config: ArborConfig;
  env: NodeJS.ProcessEnv;
}

/** The commands of the session: Arbor's, then the extensions'. */
export function availableCommands(host: AgentHost): AvailableCommand[] {
  const own = new Set(ARBOR_COMMANDS.map((command) => command.name));
  const extensions = host
    .commands()
    .filter((command) => !own.has(command.name))
    .map((command) => ({
      name: command.name,
      description: command.description || `from the extension ${command.extensionName}`,
    }));
  return [...ARBOR_COMMANDS, ...extensions];
}

/** A slash command's name and its argument text, or undefined for a plain prompt. */
export function parseSlashCommand(text: string): { name: string; args: string } | undefined {
  const match = /^\/([a-zA-Z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match?.[1]) return undefined;
  return { name: match[1], args: (match[2] ?? "").trim() };
}

/**
 * Runs one of Arbor's commands and returns the text to show.
 * @returns undefined when the name is none of Arbor's commands
 */
export async function runArborCommand(
  name: string,
  args: string,
  scope: CommandScope,
): Promise<string | undefined> {
  const { host } = scope;
  switch (name) {
    case "tree": {
      if (args !== "") {
        await host.navigate(args);
        return `Moved to ${args}; the next prompt continues from there (the branch left stays in the tree).\n`;
      }
      return `${renderTreeText(layoutTree(host.session))}\n`;
    }
    case "fork": {
      const from = args || host.session.getLeafId();
      if (from === null) return "The session is empty; there is nothing to fork.\n";
      const forked = await scope.store.fork(host.session.id, from);
      const id = forked.id;
      await forked.close();
      return `Forked into session ${id}; open it from the session list (session/load).\n`;
    }
    case "label": {
      const [first, ...rest] = args.split(/\s+/);
      const isEntry = first !== undefined && host.session.getEntry(first) !== undefined;
      const target = isEntry ? first : host.session.getLeafId();
      const text = isEntry ? rest.join(" ") : args;
      if (target === null || target === undefined)
        return "The session is empty; there is nothing to label.\n";
      await host.session.appendLabelChange(target, text === "" ? undefined : text);
      return text === "" ? `Removed the label of ${target}.\n` : `Labelled ${target} "${text}".\n`;
    }
    case "compact": {
      const outcome = await host.compact(args === "" ? undefined : args);
      return outcome.status === "compacted"
        ? "Compacted the conversation.\n"
        : `Compaction: ${outcome.status}.\n`;
    }
    case "model": {
      if (args === "") {
        const current = host.state().model;
        const list = configuredModelList(scope.config, scope.env)
          .map((model) => `  ${model.spec}${model.details ? ` (${model.details})` : ""}`)
          .join("\n");
        return `Model: ${current.provider}/${current.id}\nConfigured:\n${list}\n`;
      }
      await host.setModel(args);
      const now = host.state().model;
      return `Model: ${now.provider}/${now.id}\n`;
    }
    default:
      return undefined;
  }
}
