import type {
  AgentDefinition,
  AgentHost,
  AgentNode,
  AgentRun,
  AgentTool,
  ExtensionUIProvider,
  ReasoningLevel,
  SessionChoice,
} from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import { type CommandSandbox, probeBubblewrap, workspaceTools } from "@arbor/workspace";
import {
  loadProjectExtensions,
  loadProjectRules,
  type ProjectRules,
} from "../agent/agent-factory.js";
import {
  type ApprovalGate,
  type ApprovalGateOptions,
  createApprovalGate,
  recordApprovalsIn,
  resolveApprovalMode,
} from "../approval/index.js";
import { openCliCheckpoints } from "../checkpoints/cli-checkpoints.js";
import type { CliContext, ModelSelection } from "../cli-context.js";
import { configuredThinking } from "../config/index.js";
import {
  builtInSystemPrompt,
  contextPrompt,
  gatherPromptFacts,
  loadProjectContext,
  type ProjectContext,
} from "../context/index.js";
import { connectCliMcpServers, type McpServerSummary } from "../mcp/index.js";
import { resolveProjectTrust, trustMessages } from "../trust/index.js";
import { cliAgentDefinition, cliModels, configuredModels } from "./cli-agent.js";
import { cliAgentOptions, openCliHost } from "./open-cli-host.js";

/** What a command changes of the config's agent for its runs. */
export interface CliAgentOverrides {
  /** Replaces the config's system prompt. */
  systemPrompt?: string;
  /** Appended to the system prompt (the config's, or `systemPrompt`), after a blank line. */
  appendSystemPrompt?: string;
  /**
   * The reasoning level every request asks for, over the session's (`--thinking`); without
   * it the config's level is asked for (`arbor run`), or is the default the session's
   * `/thinking` overrides (the interactive app, see {@link CliAgentProfile.sessionThinking}).
   */
  thinking?: ReasoningLevel;
  /** Turns per prompt before the run ends with `max_turns`. */
  maxTurns?: number;
  /**
   * An agent file's tree (`--agent`): it is the agent, run whole on every prompt (advisors,
   * router, handoff, sub-agents in child sessions beside the session), instead of the
   * config's agent.
   */
  agentTree?: AgentNode;
}

/** Who runs the agent, and how it talks to the user: one profile per face of the CLI. */
export interface CliAgentProfile {
  /** The session to open or create (`chooseSession`). */
  session: SessionChoice;
  /** Another store than Arbor's session files (`--no-session`: one in memory). */
  store?: SessionStore;
  overrides?: CliAgentOverrides;
  /** Asks the user whether to trust the project's own code; without it, nobody is asked. */
  askTrust?: (question: string) => Promise<boolean>;
  /** How approvals are asked and denials reported. */
  approvals: Pick<ApprovalGateOptions, "ask" | "onDenied">;
  /** Every notice of the setup: skipped rule files, trust, extension errors, context files. */
  notice: (message: string) => void;
  /** How extensions talk to the user (`ctx.ui`). */
  ui?: ExtensionUIProvider;
  /** Sees every run extensions start, from the first `session_start` on. */
  onRun?: (run: AgentRun) => void;
  /** The session's `/thinking` level wins over the config's (the interactive app). */
  sessionThinking?: boolean;
  /**
   * Tools that take the place of the coding tools of the same name (`arbor acp`: the
   * editor's files and terminal), asked about by the approvals as the coding tools are.
   */
  toolOverrides?: readonly AgentTool[];
}

/** An agent opened for a face of the CLI, with what the face shows of its setup. */
export interface CliAgent {
  host: AgentHost;
  /** The project's stream rules (shown by `/rules`). */
  rules: ProjectRules;
  /** The instruction files given to the model (shown by `/context`). */
  projectContext: ProjectContext;
  /** The config's MCP servers, connected, with their tools (shown by `/mcp`). */
  mcpServers: readonly McpServerSummary[];
  /** The approvals the tools ask (`arbor acp` switches their mode). */
  approvals: ApprovalGate;
  /**
   * The system prompt the model is sent (shown by `/context`): the built-in one (or the
   * override), the appended text and the project's instructions; undefined for an agent
   * file's tree, whose agents carry their own.
   */
  systemPrompt: string | undefined;
  /** Closes the host, then the MCP servers. */
  close(): Promise<void>;
}

/**
 * Sets up the agent of every face of the CLI — the interactive app, print mode, `arbor
 * run` and `arbor run --agent` — one way: project trust (the project's extensions load only
 * when trusted), the project's and the user's stream rules and extensions, the project's
 * instruction files (AGENTS.md, CLAUDE.md), the config's MCP servers, the coding tools and
 * MCP tools behind the approvals, the model, then the agent host on the chosen session.
 * @throws CliError for a setup that cannot work (a broken approval file, an MCP server that
 *   does not start, a session that cannot be opened)
 */
export async function openCliAgent(
  context: CliContext,
  selection: ModelSelection,
  profile: CliAgentProfile,
): Promise<CliAgent> {
  const { io, args, paths } = context;
  const overrides = profile.overrides ?? {};
  const rules = await loadProjectRules(io.cwd, paths.home);
  for (const warning of rules.warnings) {
    profile.notice(`skipped rule file ${warning.file}: ${warning.reason}`);
  }
  const trust = await resolveProjectTrust({
    projectRoot: io.cwd,
    arborDir: paths.arborDir,
    flag: args.trustProject,
    env: io.env,
    ...(profile.askTrust ? { ask: profile.askTrust } : {}),
  });
  for (const message of trustMessages(trust)) profile.notice(message);
  const requested = resolveApprovalMode(args.approval, selection.config);
  const sandbox =
    requested === "sandbox" ? await commandSandbox(context, selection, profile) : undefined;
  // Without a working sandbox the mode is unavailable: commands are asked, never run bare.
  const mode = requested === "sandbox" && !sandbox ? "ask" : requested;
  const gate = await createApprovalGate(context, selection.config, profile.approvals, mode);
  const extensions = await loadProjectExtensions(io.cwd, paths.home, profile.notice, {
    includeProject: trust.state === "trusted",
  });
  const projectContext = await loadProjectContext(io.cwd, paths.arborDir);
  for (const problem of projectContext.problems) profile.notice(`skipped ${problem}`);
  const mcp = await connectCliMcpServers(selection.config.mcpServers);
  // A session in memory (--no-session) keeps no checkpoints: nothing could rewind to them.
  const checkpoints = args.noSession
    ? undefined
    : await openCliCheckpoints(paths, io.cwd, io.env, profile.notice);
  try {
    const thinking = overrides.thinking ?? configuredThinking(selection.config);
    const tools = [
      ...withOverrides(
        workspaceTools(io.cwd, {
          env: io.env,
          approve: gate.approve,
          ...(sandbox ? { sandbox } : {}),
        }),
        gate.wrap(profile.toolOverrides ?? []),
      ),
      ...gate.wrap(mcp.tools),
    ];
    const builtIn =
      overrides.systemPrompt === undefined && selection.config.systemPrompt === undefined
        ? builtInSystemPrompt(
            await gatherPromptFacts({
              cwd: io.cwd,
              env: io.env,
              tools: tools.map((tool) => tool.name),
              approvalMode: mode,
            }),
          )
        : undefined;
    const agent = agentOf(selection, overrides, projectContext, profile.sessionThinking, builtIn);
    const host = await openCliHost({
      paths,
      session: profile.session,
      ...(profile.store ? { store: profile.store } : {}),
      agent,
      models:
        profile.sessionThinking && overrides.thinking === undefined
          ? configuredModels(selection.provider)
          : cliModels(selection.provider, () => thinking),
      rules: rules.rules,
      tools,
      projectRoot: io.cwd,
      extensions,
      ...(profile.ui ? { ui: profile.ui } : {}),
      ...(profile.onRun ? { onRun: profile.onRun } : {}),
      ...(checkpoints ? { checkpoints } : {}),
      // A new session is titled by the model after its first exchange.
      agentOptions: cliAgentOptions(selection.config),
    });
    recordApprovalsIn(gate, host);
    return {
      host,
      rules,
      projectContext,
      mcpServers: mcp.summaries,
      approvals: gate,
      systemPrompt: overrides.agentTree ? undefined : (agent as AgentDefinition).systemPrompt,
      close: async () => {
        try {
          await host.close();
        } finally {
          await mcp.close().catch(() => undefined);
        }
      },
    };
  } catch (error) {
    await mcp.close().catch(() => undefined);
    throw error;
  }
}

/** The tools with each one an override names replaced by the override. */
function withOverrides(tools: AgentTool[], overrides: readonly AgentTool[]): AgentTool[] {
  const byName = new Map(overrides.map((tool) => [tool.name, tool]));
  return tools.map((tool) => byName.get(tool.name) ?? tool);
}

/**
 * The bubblewrap sandbox of the `sandbox` approval mode (`ARBOR_BWRAP` names another
 * `bwrap`), or undefined after one notice saying why it cannot be used.
 */
async function commandSandbox(
  context: CliContext,
  selection: ModelSelection,
  profile: Pick<CliAgentProfile, "notice">,
): Promise<CommandSandbox | undefined> {
  const probe = await probeBubblewrap(context.io.env.ARBOR_BWRAP || "bwrap");
  if (!probe.available) {
    profile.notice(
      `The sandbox approval mode is unavailable: ${probe.reason}. Commands will be asked for (approval mode ask).`,
    );
    return undefined;
  }
  return {
    bwrap: probe.bwrap,
    ...(selection.config.sandbox?.network ? { allowNetwork: true } : {}),
  };
}

/** The agent a profile runs: the agent file's tree, or the config's agent, with the overrides. */
function agentOf(
  selection: ModelSelection,
  overrides: CliAgentOverrides,
  projectContext: ProjectContext,
  sessionThinking: boolean | undefined,
  builtIn: string | undefined,
): AgentDefinition | AgentNode {
  const base =
    overrides.agentTree?.definition ??
    cliAgentDefinition(selection.provider, selection.config, {
      systemPrompt: runSystemPrompt(selection.config.systemPrompt ?? builtIn, overrides),
      context: contextPrompt(projectContext),
    });
  const configThinking = sessionThinking ? selection.config.thinking : undefined;
  const definition: AgentDefinition = {
    ...base,
    ...(configThinking ? { thinking: configThinking } : {}),
    ...(overrides.maxTurns !== undefined
      ? { limits: { ...base.limits, maxTurns: overrides.maxTurns } }
      : {}),
  };
  return overrides.agentTree ? { ...overrides.agentTree, definition } : definition;
}

/**
 * The system prompt of a run: the override, else the configured one (the config's, or the
 * built-in prompt when the config sets none), with the appended text.
 */
export function runSystemPrompt(
  configured: string | undefined,
  overrides: Pick<CliAgentOverrides, "systemPrompt" | "appendSystemPrompt">,
): string | undefined {
  const base = overrides.systemPrompt ?? configured;
  const parts = [base, overrides.appendSystemPrompt].filter(
    (part): part is string => part !== undefined && part.trim() !== "",
  );
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}
