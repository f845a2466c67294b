import {
  AgentHost,
  type AgentHostOptions,
  type HostAgentOptions,
  type SessionChoice,
} from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import type { ArborConfig } from "../config/index.js";
import { type ArborPaths, sessionDirFor } from "../paths.js";
import { asCliError } from "../session-locator.js";
import { CliSessionStore } from "./cli-session-store.js";

/** What {@link openCliHost} opens: the session choice and everything but the store. */
export type CliHostOptions = Omit<
  AgentHostOptions,
  "store" | "sessionDir" | "sessionId" | "create"
> & {
  paths: ArborPaths;
  /** From `chooseSession`: a session file, or a new session of a working directory. */
  session: SessionChoice;
  /** Another store than Arbor's session files (`--no-session`: one in memory). */
  store?: SessionStore;
};

/**
 * Opens the agent host on Arbor's session files (and files named by path), turning
 * session-store errors (a locked or missing session) into messages with a next step.
 * @throws CliError for a session that cannot be opened or created
 */
export async function openCliHost(options: CliHostOptions): Promise<AgentHost> {
  const { paths, session, store: given, ...rest } = options;
  const store =
    given ??
    new CliSessionStore({
      sessionsRoot: paths.sessionsRoot,
      sessionDirFor: (cwd) => sessionDirFor(paths, cwd),
    });
  try {
    return await AgentHost.open({ ...rest, ...session, store } as AgentHostOptions);
  } catch (error) {
    throw asCliError(error);
  }
}

/**
 * The turn runner's options the config sets: titles after the first exchange, compaction;
 * and a cap on tool output (a long command output is kept whole behind a handle the model
 * pages through with `read_tool_output`).
 */
export function cliAgentOptions(config: ArborConfig): HostAgentOptions {
  return {
    generateTitle: config.autoTitle ?? true,
    toolOutput: {},
    ...(config.compaction ? { compaction: dropUndefined(config.compaction) } : {}),
  };
}

function dropUndefined<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
