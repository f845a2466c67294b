import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import {
  type AgentDefinition,
  AgentDefinitionError,
  type AgentNode,
  agentTreeOf,
  defineAgent,
  loadAgentFolder,
  loadAgentTree,
  type ModelProviders,
  OrchestrationError,
  resolveModelTargets,
} from "@arbor/orchestration";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { withAbsoluteExtensionPaths } from "../extensions/agent-extensions.js";
import { DEFAULT_EXTENSION_SETTINGS } from "../extensions/extension-settings.js";
import { ServerExtensions } from "../extensions/server-extensions.js";
import { ServerConfigError } from "./server-config-error.js";
import { type ServerConfigFile, serverConfigFileSchema } from "./server-config-schema.js";

/** The largest config file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** The agents a server offers, by name, and the providers their targets resolve against. */
export interface ServerAgents {
  /** Each agent with the agents it names (advisors, router, handoff, sub-agents), loaded. */
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  providers: ModelProviders;
  /** The agents' extensions, loaded once to check them; each run loads its own. */
  extensions: ServerExtensions;
}

/** The dotted path of a zod issue (`agents[1].models`). */
function fieldOf(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return "(file)";
  const path = issue.path
    .map((part, i) =>
      typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`,
    )
    .join("");
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.join(", ");
    return path ? `${path}.${keys}` : keys;
  }
  return path || "(file)";
}

/**
 * Reads and checks a YAML config file.
 * @throws ServerConfigError naming the file, the field and the reason
 */
export async function readServerConfigFile(path: string): Promise<ServerConfigFile> {
  let text: string;
  try {
    const bytes = await readFile(path);
    if (bytes.length > MAX_CONFIG_BYTES) {
      throw new ServerConfigError(path, "(file)", `larger than ${MAX_CONFIG_BYTES} bytes`);
    }
    text = bytes.toString("utf8");
  } catch (error) {
    if (ServerConfigError.isInstance(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ServerConfigError(
      path,
      "(file)",
      code === "ENOENT" ? "no such file" : `cannot be read (${code ?? "error"})`,
    );
  }
  return parseServerConfigText(text, path);
}

/**
 * Checks the text of a YAML config file.
 * @param source - the name errors give the file
 * @throws ServerConfigError naming the field and the reason
 */
export function parseServerConfigText(text: string, source: string): ServerConfigFile {
  let raw: unknown;
  try {
    raw = parseYaml(text, { schema: "core", uniqueKeys: true, maxAliasCount: 16 }) ?? {};
  } catch (error) {
    throw new ServerConfigError(
      source,
      "(file)",
      `not valid YAML: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const parsed = serverConfigFileSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ServerConfigError(source, fieldOf(issue), issue?.message ?? "invalid");
}

/**
 * Loads the agents a config names and fills the providers' keys from the environment.
 * Every agent's model targets are resolved once, so a bad target stops the start.
 * @param configPath - the config file (relative agent paths start from its folder), or undefined
 * @param env - the environment the `apiKeyEnv` variables are read from
 * @throws ServerConfigError naming the file, the field and the reason
 */
export async function loadServerAgents(
  config: ServerConfigFile,
  configPath: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ServerAgents> {
  const source = configPath ?? "(no config file)";
  const base = configPath ? dirname(resolve(configPath)) : process.cwd();
  const providers: ModelProviders = { providers: {} };
  for (const [name, provider] of Object.entries(config.providers)) {
    const { apiKeyEnv, ...settings } = provider;
    let apiKey: string | undefined;
    if (apiKeyEnv !== undefined) {
      apiKey = env[apiKeyEnv];
      if (!apiKey?.trim()) {
        throw new ServerConfigError(
          source,
          `providers.${name}.apiKeyEnv`,
          `the environment variable ${apiKeyEnv} is not set`,
        );
      }
    }
    providers.providers[name] = { ...settings, ...(apiKey !== undefined ? { apiKey } : {}) };
  }
  const agents = new Map<string, AgentNode>();
  const add = (node: AgentNode, field: string) => {
    const { definition } = node;
    if (agents.has(definition.name)) {
      throw new ServerConfigError(source, field, `a second agent named "${definition.name}"`);
    }
    // Extension paths of an agent written inline are relative to the config file.
    agents.set(definition.name, {
      ...node,
      definition: withAbsoluteExtensionPaths(definition, base),
    });
  };
  for (const [index, entry] of config.agents.entries()) {
    const field = `agents[${index}]`;
    try {
      // An agent file's tree is loaded whole: the agents it names, relative to its folder.
      const node =
        "file" in entry && typeof entry.file === "string"
          ? await loadAgentTree(resolve(base, entry.file))
          : await agentTreeOf(defineAgent(entry as Parameters<typeof defineAgent>[0]));
      add(node, field);
    } catch (error) {
      throw agentProblem(error, source, field);
    }
  }
  if (config.agentsDir !== undefined) {
    const folder = await loadAgentFolder(resolve(base, config.agentsDir)).catch(
      (error: unknown) => {
        throw agentProblem(error, source, "agentsDir");
      },
    );
    const first = folder.problems[0];
    if (first) throw agentProblem(first, source, "agentsDir");
    for (const file of folder.files) {
      add(
        await loadAgentTree(file).catch((error: unknown) => {
          throw agentProblem(error, source, "agentsDir");
        }),
        "agentsDir",
      );
    }
  }
  for (const [name, { definition }] of agents) {
    if (definition.tools?.length) {
      throw new ServerConfigError(
        source,
        `agent "${name}".tools`,
        `arbor-server offers no app tools (asked for ${definition.tools.join(", ")}); give the agent tools through mcpServers`,
      );
    }
    try {
      resolveModelTargets(definition.models, providers);
    } catch (error) {
      const reason = OrchestrationError.isInstance(error) ? error.message : String(error);
      throw new ServerConfigError(source, `agent "${name}".models`, reason);
    }
  }
  // Loaded once now, so a missing or broken extension stops the start, not every run.
  const extensions = await ServerExtensions.load(agents, {
    source,
    base,
    settings: config.extensions ?? DEFAULT_EXTENSION_SETTINGS,
  });
  return { agents, providers, extensions };
}

function agentProblem(error: unknown, source: string, field: string): ServerConfigError {
  if (AgentDefinitionError.isInstance(error)) {
    return new ServerConfigError(source, `${field}.${error.key}`, `${error.file}: ${error.reason}`);
  }
  if (ServerConfigError.isInstance(error)) return error;
  return new ServerConfigError(source, field, (error as Error).message ?? String(error));
}
