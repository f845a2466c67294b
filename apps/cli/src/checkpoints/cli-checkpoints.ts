import { join } from "node:path";
import { openCheckpointStore, type SessionCheckpoints, sessionCheckpoints } from "@arbor/workspace";
import type { ArborPaths } from "../paths.js";

/** Where the CLI keeps the checkpoint stores: one per workspace under Arbor's home. */
export function checkpointHome(paths: ArborPaths): string {
  return join(paths.arborDir, "checkpoints");
}

/**
 * The checkpoints of a working folder, bound to the sessions the CLI opens; undefined
 * (after one notice) when git cannot run or the folder is not a folder, so nothing else breaks.
 */
export async function openCliCheckpoints(
  paths: ArborPaths,
  cwd: string,
  env: NodeJS.ProcessEnv,
  notice: (message: string) => void,
): Promise<SessionCheckpoints | undefined> {
  try {
    const store = await openCheckpointStore({
      workspace: cwd,
      home: checkpointHome(paths),
      ...(env.PATH ? { git: { path: env.PATH } } : {}),
    });
    if (!store.available) {
      notice(`checkpoints are off: ${store.reason}`);
      return undefined;
    }
    return sessionCheckpoints({ store });
  } catch (error) {
    notice(`checkpoints are off: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
