import { stat } from "node:fs/promises";
import { basename, isAbsolute, resolve } from "node:path";
import type { AgentDefinition } from "@arbor/orchestration";
import { type ExtensionErrorEvent, ExtensionRunner } from "@arbor/orchestration";
import { ServerConfigError } from "../config/server-config-error.js";
import type { ServerExtensionSettings } from "./extension-settings.js";

/** A command an agent's extensions register, as `GET /v1/agents/:agent/commands` lists it. */
export interface AgentCommandInfo {
  /** Without the leading slash. */
  name: string;
  description: string;
  /** The extension that registered it. */
  extension: string;
}

/** What loading an agent's extensions found: the commands they registered. */
export interface AgentExtensionCatalogue {
  /** The extension files, absolute, in the definition's order. */
  paths: readonly string[];
  commands: readonly AgentCommandInfo[];
  /**
   * The runner they were checked in, kept for what needs no run: the message renderers of
   * the HTML export. Its failures after the check go to `onLateError`.
   */
  runner: ExtensionRunner;
}

/** Where an agent's extensions are checked: the config file, for errors, and its folder. */
export interface AgentExtensionSource {
  /** The config file (or its stand-in) named by errors. */
  source: string;
  /** The folder relative extension paths start from, and extensions' working folder. */
  base: string;
  settings: ServerExtensionSettings;
}

/**
 * The definition with its extension paths made absolute against `base` (an agent file's
 * are already absolute: the agent loader resolves them against the file).
 */
export function withAbsoluteExtensionPaths(
  definition: AgentDefinition,
  base: string,
): AgentDefinition {
  if (!definition.extensions?.length) return definition;
  return {
    ...definition,
    extensions: definition.extensions.map((path) =>
      isAbsolute(path) ? path : resolve(base, path),
    ),
  };
}

/**
 * A runner for one run (or one check) of an agent: no discovery (no project or home
 * folders), only the paths the definition names, which `AgentHost.open` loads.
 */
export function newAgentRunner(
  where: Pick<AgentExtensionSource, "base" | "settings">,
  options: {
    onError: (event: ExtensionErrorEvent) => void;
    generateId?: () => string;
  },
): ExtensionRunner {
  return new ExtensionRunner({
    cwd: where.base,
    includeProject: false,
    handlerTimeoutMs: where.settings.handlerTimeoutMs,
    uiTimeoutMs: where.settings.uiTimeoutMs,
    onError: options.onError,
    ...(options.generateId ? { generateId: options.generateId } : {}),
  });
}

/**
 * Loads every extension an agent names, once, at start-up, through the same runner (and
 * so the same isolation) the runs use. A file that is missing, is not a file, fails to
 * import, has no factory, or whose factory throws or hangs stops the start.
 * @throws ServerConfigError naming `agent "<name>".extensions[<i>]` and the reason
 */
export async function checkAgentExtensions(
  name: string,
  definition: AgentDefinition,
  where: AgentExtensionSource,
  onLateError: (event: ExtensionErrorEvent) => void = () => undefined,
): Promise<AgentExtensionCatalogue> {
  const paths = definition.extensions ?? [];
  const problems: ExtensionErrorEvent[] = [];
  let checked = false;
  const runner = newAgentRunner(where, {
    onError: (event) => (checked ? onLateError(event) : problems.push(event)),
  });
  for (const [index, path] of paths.entries()) {
    const field = `agent "${name}".extensions[${index}]`;
    const kind = await stat(path).then(
      (info) => (info.isFile() ? "file" : "other"),
      () => "missing",
    );
    if (kind !== "file") {
      throw new ServerConfigError(
        where.source,
        field,
        kind === "missing"
          ? `${path}: no such file`
          : `${path}: not a file; name the extension's module (for example its index.ts)`,
      );
    }
    const loaded = await runner.load({ name: basename(path), path, origin: "path" });
    const problem = problems.find((event) => event.extensionPath === path) ?? problems[0];
    if (!loaded || problem) {
      throw new ServerConfigError(
        where.source,
        field,
        `${path}: ${problem?.error ?? "the extension did not load"}`,
      );
    }
  }
  const commands = runner.getCommands().map((command) => ({
    name: command.name,
    description: command.description,
    extension: command.extensionName,
  }));
  checked = true;
  return { paths, commands, runner };
}
