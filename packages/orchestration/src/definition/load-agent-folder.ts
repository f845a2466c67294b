import { opendir } from "node:fs/promises";
import { join } from "node:path";
import { AgentDefinitionError } from "../errors/index.js";
import type { AgentDefinition } from "./agent-definition.js";
import { type LoadAgentFileOptions, loadAgentFile } from "./load-agent-file.js";

/** The most agent files one folder may hold; the rest are reported, not read. */
export const DEFAULT_MAX_AGENT_FILES = 500;

/** Options of {@link loadAgentFolder}. */
export interface LoadAgentFolderOptions extends LoadAgentFileOptions {
  /** Files read at most; default {@link DEFAULT_MAX_AGENT_FILES}. */
  maxFiles?: number;
}

/** The agents of a folder: those that load, and why the others did not. */
export interface AgentFolder {
  /** By file name order. */
  agents: AgentDefinition[];
  /** The file of each agent: `files[i]` defined `agents[i]`. */
  files: string[];
  /** One error per file that could not be used, naming the file, the key and the reason. */
  problems: AgentDefinitionError[];
}

/**
 * Loads every `*.md` file of a folder (not its subfolders) as an agent file. A broken file
 * is reported in `problems` and the others load; two files defining one name are both
 * reported and neither is used. A missing folder has no agents.
 * @throws AgentDefinitionError when the folder exists but cannot be listed
 * @example
 * const { agents, problems } = await loadAgentFolder(".arbor/agents");
 */
export async function loadAgentFolder(
  folder: string,
  options: LoadAgentFolderOptions = {},
): Promise<AgentFolder> {
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_AGENT_FILES;
  const names: string[] = [];
  const problems: AgentDefinitionError[] = [];
  let listing: AsyncIterable<{ name: string; isDirectory(): boolean }>;
  try {
    listing = await opendir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { agents: [], files: [], problems: [] };
    throw new AgentDefinitionError(folder, [
      { key: "(folder)", reason: `the folder cannot be listed (${(error as Error).message})` },
    ]);
  }
  for await (const entry of listing) {
    if (entry.isDirectory() || !entry.name.endsWith(".md")) continue;
    names.push(entry.name);
  }
  names.sort();
  for (const name of names.slice(maxFiles)) {
    problems.push(
      new AgentDefinitionError(join(folder, name), [
        { key: "(file)", reason: `not read: the folder holds more than ${maxFiles} agent files` },
      ]),
    );
  }
  const loaded: Array<{ file: string; agent: AgentDefinition }> = [];
  for (const name of names.slice(0, maxFiles)) {
    const file = join(folder, name);
    try {
      loaded.push({ file, agent: await loadAgentFile(file, options) });
    } catch (error) {
      if (!AgentDefinitionError.isInstance(error)) throw error;
      problems.push(error);
    }
  }
  const byName = new Map<string, string[]>();
  for (const { file, agent } of loaded)
    byName.set(agent.name, [...(byName.get(agent.name) ?? []), file]);
  const agents: AgentDefinition[] = [];
  const agentFiles: string[] = [];
  for (const { file, agent } of loaded) {
    const files = byName.get(agent.name) ?? [];
    if (files.length === 1) {
      agents.push(agent);
      agentFiles.push(file);
      continue;
    }
    const others = files.filter((other) => other !== file).join(", ");
    problems.push(
      new AgentDefinitionError(file, [
        {
          key: "name",
          reason: `the name "${agent.name}" is also defined by ${others}; neither is used`,
        },
      ]),
    );
  }
  return { agents, files: agentFiles, problems };
}
