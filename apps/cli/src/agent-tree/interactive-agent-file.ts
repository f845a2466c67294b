import { resolve } from "node:path";
import type { AgentNode, SessionChoice } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import { rememberedAgentFile } from "./agent-file-entry.js";
import { loadCliAgentTree } from "./load-cli-agent-tree.js";

/** The agent file the interactive app runs on, loaded. */
export interface InteractiveAgentFile {
  /** The agent file (absolute). */
  file: string;
  tree: AgentNode;
  /** True when it came from the resumed session rather than from `--agent`. */
  remembered: boolean;
}

/**
 * The agent file the interactive app runs on: `--agent`, else the one a resumed session
 * was run on (its `arbor.cli.agent-file` entry), else none. Loaded in full before the app
 * opens, so a broken file stops it with the file, the key and the reason.
 * @throws CliError (exit code 2) for an agent file that does not load
 */
export async function interactiveAgentFile(
  cwd: string,
  given: string | undefined,
  session: SessionChoice,
  store: SessionStore,
): Promise<InteractiveAgentFile | undefined> {
  if (given !== undefined) {
    const file = resolve(cwd, given);
    return { file, tree: await loadCliAgentTree(cwd, file), remembered: false };
  }
  if (session.sessionId === undefined) return undefined;
  // A session that cannot be read is reported when the app opens it, not here.
  const peek = await store.open(session.sessionId, { readOnly: true }).catch(() => undefined);
  if (!peek) return undefined;
  const file = rememberedAgentFile(peek);
  await peek.close();
  if (file === undefined) return undefined;
  return { file, tree: await loadCliAgentTree(cwd, file, true), remembered: true };
}
