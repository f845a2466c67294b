import type { AgentHost, AgentNode, ReasoningLevel } from "@arbor/orchestration";
import { MemorySessionStore } from "@arbor/session-store";
import { workspaceTools } from "@arbor/workspace";
import { loadProjectExtensions, loadProjectRules } from "../agent/agent-factory.js";
import { askOnTerminal, createApprovalGate, recordApprovalsIn } from "../approval/index.js";
import type { CliContext, ModelSelection } from "../cli-context.js";
import { configuredThinking } from "../config/index.js";
import { contextPrompt, loadProjectContext } from "../context/index.js";
import { cliAgentDefinition, cliAgentOptions, cliModels, openCliHost } from "../host/index.js";
import { chooseSession } from "../session-locator.js";
import { resolveProjectTrust, trustMessages } from "../trust/index.js";

/** What a non-interactive run changes from the config for this run only. */
export interface RunOverrides {
  /** Replaces the config's system prompt. */
  systemPrompt?: string;
  /** Appended to the system prompt (the config's, or `systemPrompt`), after a blank line. */
  appendSystemPrompt?: string;
  /** The reasoning level asked of the model. */
  thinking?: ReasoningLevel;
  /** Turns per prompt before the run ends with `max_turns`. */
  maxTurns?: number;
  /** Keep the session in memory only: nothing is written. */
  noSession?: boolean;
  /**
   * An agent file's tree (`--agent`): it is the agent, run whole on every prompt (advisors,
   * router, handoff, sub-agents in child sessions beside the session), instead of the
   * config's agent.
   */
  agentTree?: AgentNode;
}

/** The system prompt of a run: the override or the config's, with the appended text. */
export function runSystemPrompt(
  configured: string | undefined,
  overrides: RunOverrides,
): string | undefined {
  const base = overrides.systemPrompt ?? configured;
  const parts = [base, overrides.appendSystemPrompt].filter(
    (part): part is string => part !== undefined && part.trim() !== "",
  );
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/**
 * What every non-interactive run works with: the approval gate of the coding tools (asked
 * on the terminal when there is one, refused at once when not; denials noted on stderr)
 * and the project's stream rules (skipped rule files noted on stderr).
 */
export async function runGateAndRules(context: CliContext, selection: ModelSelection) {
  const { io, paths, printer } = context;
  const canAsk = io.stdin.isTTY === true && io.stderr.isTTY === true;
  const gate = await createApprovalGate(context, selection.config, {
    ...(canAsk ? { ask: askOnTerminal(io.stdin, io.stderr) } : {}),
    onDenied: (error) => printer.err(`[${error.message}]\n`),
  });
  const rules = await loadProjectRules(io.cwd, paths.home);
  for (const warning of rules.warnings) {
    printer.err(`[skipped rule file ${warning.file}: ${warning.reason}]\n`);
  }
  return { gate, rules };
}

/**
 * Opens the agent host of `arbor run` and print mode: the project's stream rules and
 * extensions (the project's own only when trusted), the coding tools behind the approval
 * gate (asked on the terminal when there is one, refused at once when not), and the
 * session `--continue`/`--session` choose, or a new one (in memory with `noSession`).
 * Notices go to stderr.
 */
export async function openRunHost(
  context: CliContext,
  selection: ModelSelection,
  overrides: RunOverrides = {},
): Promise<AgentHost> {
  const { io, args, paths, printer } = context;
  const choice = overrides.noSession
    ? { create: { cwd: io.cwd } }
    : await chooseSession(paths, io.cwd, args);
  const { gate, rules } = await runGateAndRules(context, selection);
  const trust = await resolveProjectTrust({
    projectRoot: io.cwd,
    arborDir: paths.arborDir,
    flag: args.trustProject,
    env: io.env,
  });
  for (const message of trustMessages(trust)) printer.err(`[${message}]\n`);
  const extensions = await loadProjectExtensions(
    io.cwd,
    paths.home,
    (message) => printer.err(`[${message}]\n`),
    { includeProject: trust.state === "trusted" },
  );
  const projectContext = await loadProjectContext(io.cwd, paths.arborDir);
  for (const problem of projectContext.problems) printer.err(`[skipped ${problem}]\n`);
  const base =
    overrides.agentTree?.definition ??
    cliAgentDefinition(selection.provider, selection.config, {
      systemPrompt: runSystemPrompt(selection.config.systemPrompt, overrides),
      context: contextPrompt(projectContext),
    });
  const definition = {
    ...base,
    ...(overrides.maxTurns !== undefined
      ? { limits: { ...base.limits, maxTurns: overrides.maxTurns } }
      : {}),
  };
  const thinking = overrides.thinking ?? configuredThinking(selection.config);
  const host = await openCliHost({
    paths,
    session: choice,
    ...(overrides.noSession ? { store: new MemorySessionStore() } : {}),
    agent: overrides.agentTree ? { ...overrides.agentTree, definition } : definition,
    models: cliModels(selection.provider, () => thinking),
    rules: rules.rules,
    tools: workspaceTools(io.cwd, { env: io.env, approve: gate.approve }),
    projectRoot: io.cwd,
    extensions,
    // As in the app: a new session is titled by the model after its first exchange.
    agentOptions: cliAgentOptions(selection.config),
  });
  recordApprovalsIn(gate, host);
  return host;
}
