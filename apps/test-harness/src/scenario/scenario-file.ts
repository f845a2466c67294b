import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { ArborError, arborErrorGuard } from "@arbor/session-store";
import { parse as parseYaml } from "yaml";
import {
  AGENT_SCENARIO_VERSION,
  type AgentScenario,
  agentScenarioSchema,
} from "../agent-scenario/agent-scenario-schema.js";
import {
  ORCHESTRATION_SCENARIO_VERSION,
  type OrchestrationScenario,
  orchestrationScenarioSchema,
} from "../orchestration-scenario/orchestration-scenario-schema.js";
import { type Scenario, scenarioSchema } from "./scenario-schema.js";

const EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

/** A scenario of any format: adapter-only (version 1), agent (2) or orchestration (3). */
export type AnyScenario = Scenario | AgentScenario | OrchestrationScenario;

/** True for an agent scenario (format version 2). */
export function isAgentScenario(scenario: AnyScenario): scenario is AgentScenario {
  return scenario.version === AGENT_SCENARIO_VERSION;
}

/** True for an orchestration scenario (format version 3). */
export function isOrchestrationScenario(scenario: AnyScenario): scenario is OrchestrationScenario {
  return scenario.version === ORCHESTRATION_SCENARIO_VERSION;
}

/** A scenario and the file it came from. */
export interface ScenarioFile {
  path: string;
  scenario: AnyScenario;
}

/** A scenario file that could not be read or did not validate; `path` says which. */
export class ScenarioFileError extends ArborError {
  declare readonly code: "scenario_file";
  readonly path: string;

  constructor(path: string, reason: string) {
    super("scenario_file", `${path}: ${reason}`);
    this.name = "ScenarioFileError";
    this.path = path;
  }

  /** True for a {@link ScenarioFileError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<ScenarioFileError>(
    "@arbor/test-harness:ScenarioFileError",
  );
}

/**
 * Parses one scenario from JSON or YAML text: `version: 2` selects the agent format,
 * `version: 3` the orchestration format, anything else the adapter-only format.
 *
 * @throws ScenarioFileError naming the file and every schema problem.
 */
export function parseScenario(text: string, path: string): AnyScenario {
  let data: unknown;
  try {
    data = extname(path) === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ScenarioFileError(
      path,
      `not valid ${extname(path).slice(1).toUpperCase()}: ${(error as Error).message}`,
    );
  }
  const version =
    typeof data === "object" && data !== null ? (data as { version?: unknown }).version : undefined;
  const schema =
    version === AGENT_SCENARIO_VERSION
      ? agentScenarioSchema
      : version === ORCHESTRATION_SCENARIO_VERSION
        ? orchestrationScenarioSchema
        : scenarioSchema;
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new ScenarioFileError(path, `not a valid scenario:\n  ${issues.join("\n  ")}`);
  }
  return parsed.data;
}

/** Loads one scenario file, or every `.json` / `.yaml` / `.yml` file under a directory, sorted by path. */
export async function loadScenarios(target: string): Promise<ScenarioFile[]> {
  const info = await stat(target).catch(() => {
    throw new ScenarioFileError(target, "no such file or directory");
  });
  const paths = info.isDirectory() ? await listScenarioFiles(target) : [target];
  const files: ScenarioFile[] = [];
  for (const path of paths)
    files.push({ path, scenario: parseScenario(await readFile(path, "utf8"), path) });
  return files;
}

async function listScenarioFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && EXTENSIONS.has(extname(entry.name)))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
