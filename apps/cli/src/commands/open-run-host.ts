import { MemorySessionStore } from "@arbor/session-store";
import { askOnTerminal } from "../approval/index.js";
import type { CliContext, ModelSelection } from "../cli-context.js";
import { type CliAgent, type CliAgentOverrides, openCliAgent } from "../host/index.js";
import { chooseSession } from "../session-locator.js";

/** What a non-interactive run changes from the config for this run only. */
export interface RunOverrides extends CliAgentOverrides {
  /** Keep the session in memory only: nothing is written. */
  noSession?: boolean;
}

/**
 * Opens the agent of `arbor run`, `arbor run --agent` and print mode through the one CLI
 * setup ({@link openCliAgent}): approvals are asked on the terminal when there is one and
 * refused at once when not; every notice goes to stderr. The session is the one
 * `--continue`/`--session` choose, or a new one (in memory with `noSession`).
 */
export async function openRunHost(
  context: CliContext,
  selection: ModelSelection,
  overrides: RunOverrides = {},
): Promise<CliAgent> {
  const { io, args, paths, printer } = context;
  const { noSession, ...agentOverrides } = overrides;
  const session = noSession
    ? { create: { cwd: io.cwd } }
    : await chooseSession(paths, io.cwd, args);
  const canAsk = io.stdin.isTTY === true && io.stderr.isTTY === true;
  return openCliAgent(context, selection, {
    session,
    ...(noSession ? { store: new MemorySessionStore() } : {}),
    overrides: agentOverrides,
    approvals: {
      ...(canAsk ? { ask: askOnTerminal(io.stdin, io.stderr) } : {}),
      onDenied: (error) => printer.err(`[${error.message}]\n`),
    },
    notice: (message) => printer.err(`[${message}]\n`),
  });
}
