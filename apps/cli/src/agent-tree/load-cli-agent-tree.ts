import { resolve } from "node:path";
import { AgentDefinitionError, type AgentNode, loadAgentTree } from "@arbor/orchestration";
import { CliError } from "../cli-error.js";

/**
 * Loads an agent file and every agent it names (advisors, router destinations, handoff,
 * sub-agents), resolved against `cwd`.
 * @param remembered - the file came from a resumed session, not from `--agent`: the hint
 *   says how to run the session without it
 * @throws CliError (exit code 2) naming the file, the key and the reason, for a missing
 *   file, an unknown key, a cycle or any other problem of the definitions
 */
export async function loadCliAgentTree(
  cwd: string,
  file: string,
  remembered = false,
): Promise<AgentNode> {
  try {
    return await loadAgentTree(resolve(cwd, file));
  } catch (error) {
    if (!AgentDefinitionError.isInstance(error)) throw error;
    const hint = remembered
      ? `The session was started with the agent file ${file}; fix it, or pass --agent <another file>.`
      : "Fix the agent file (its keys are listed in arbor --help), then run it again.";
    throw new CliError(error.message, { hint, exitCode: 2, cause: error });
  }
}
