import { basename, dirname, extname, isAbsolute, resolve } from "node:path";
import { AgentDefinitionError, type DefinitionProblem } from "../errors/index.js";
import {
  type AgentDefinition,
  type AgentDefinitionInput,
  agentDefinitionSchema,
} from "./agent-definition.js";
import { problemsOf } from "./definition-problems.js";
import { droppedKeys } from "./dropped-keys.js";
import { splitFrontMatter } from "./front-matter.js";

/** Spellings of a rule's condition other tools use; the rule schema reads them as `condition`. */
const LEGACY_RULE_KEYS = new Set(["ttsr_trigger", "ttsrTrigger"]);

/** Where a definition's text came from, for errors and relative paths. */
export interface DefinitionSource {
  /** The file the text was read from; names it in errors. Default `<inline>`. */
  file?: string;
}

/**
 * Checks a definition given in code.
 * @throws AgentDefinitionError naming every key at fault and why
 * @example
 * const reviewer = defineAgent({ name: "reviewer", systemPrompt: "Review diffs.", models: ["openai/gpt-4.1"] });
 */
export function defineAgent(
  input: AgentDefinitionInput,
  source: DefinitionSource = {},
): AgentDefinition {
  const file = source.file ?? "<inline>";
  const parsed = agentDefinitionSchema.safeParse(input);
  if (!parsed.success) throw new AgentDefinitionError(file, problemsOf(parsed.error));
  const written = input as { mcpServers?: unknown; streamRules?: unknown };
  const dropped = [
    ...droppedKeys(written.mcpServers, parsed.data.mcpServers, ["mcpServers"]),
    ...droppedKeys(written.streamRules, parsed.data.streamRules, ["streamRules"], LEGACY_RULE_KEYS),
  ];
  if (dropped.length > 0) throw new AgentDefinitionError(file, dropped);
  return parsed.data;
}

/**
 * Reads the text of a Markdown agent file: YAML front matter between `---` lines holds the
 * fields, the body is the system prompt. Without `name`, the file's name (less `.md`) is
 * the agent's. Relative paths (`extensions`, `advisors`, `router.destinations`, `handoff`,
 * `agents`) are resolved against the file's folder.
 * @throws AgentDefinitionError naming the file, the key and the reason
 * @example
 * const agent = parseAgentMarkdown("---\nmodels: [openai/gpt-4.1]\n---\nYou review diffs.", { file: "reviewer.md" });
 */
export function parseAgentMarkdown(text: string, source: DefinitionSource = {}): AgentDefinition {
  const file = source.file ?? "<inline>";
  const split = splitFrontMatter(text);
  if (!split.ok) throw new AgentDefinitionError(file, split.problems);
  const { data, body } = split.value;
  const problems: DefinitionProblem[] = [];
  if (Object.hasOwn(data, "systemPrompt")) {
    problems.push({
      key: "systemPrompt",
      reason: "an agent file's system prompt is its Markdown body; remove this key",
    });
  }
  const systemPrompt = body.trim();
  if (systemPrompt === "") {
    problems.push({ key: "(body)", reason: "the body (the system prompt) is empty" });
  }
  if (problems.length > 0) throw new AgentDefinitionError(file, problems);
  const named = Object.hasOwn(data, "name");
  const name = named ? data.name : nameFromFile(file);
  let definition: AgentDefinition;
  try {
    definition = defineAgent({ ...data, name, systemPrompt } as AgentDefinitionInput, { file });
  } catch (error) {
    if (named || !AgentDefinitionError.isInstance(error)) throw error;
    // The name came from the file name: say so, since no key in the file is wrong.
    const problems = error.problems.map((problem) =>
      problem.key === "name"
        ? {
            key: "name",
            reason: `the file name does not make a valid name (${problem.reason}); add a name key`,
          }
        : problem,
    );
    throw new AgentDefinitionError(file, problems);
  }
  return source.file === undefined ? definition : withResolvedPaths(definition, source.file);
}

function nameFromFile(file: string): string | undefined {
  if (file === "<inline>") return undefined;
  const base = basename(file);
  return base.slice(0, base.length - extname(base).length);
}

function withResolvedPaths(definition: AgentDefinition, file: string): AgentDefinition {
  const folder = dirname(resolve(file));
  const at = (path: string) => (isAbsolute(path) ? path : resolve(folder, path));
  const resolved: AgentDefinition = { ...definition };
  if (definition.extensions) resolved.extensions = definition.extensions.map(at);
  if (definition.advisors) resolved.advisors = definition.advisors.map(at);
  if (definition.router) resolved.router = { destinations: definition.router.destinations.map(at) };
  if (definition.handoff !== undefined) resolved.handoff = at(definition.handoff);
  if (definition.agents) resolved.agents = definition.agents.map(at);
  return resolved;
}
