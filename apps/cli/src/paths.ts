import { homedir } from "node:os";
import { basename, join } from "node:path";
import { defaultSessionDir } from "@arbor/session-store";

/** Where `arbor` keeps its files, resolved once from the environment. */
export interface ArborPaths {
  /** The user's home directory (home stream rules live under it). */
  home: string;
  /** Arbor's own directory: `$ARBOR_HOME`, else `~/.arbor`. */
  arborDir: string;
  /** The configuration file. */
  configFile: string;
  /** The directory holding one folder of sessions per working directory. */
  sessionsRoot: string;
}

/**
 * Resolves Arbor's directories. `ARBOR_HOME` moves everything (tests point it at a temp
 * directory); otherwise `HOME` decides, as `os.homedir()` reads it.
 */
export function resolveArborPaths(env: NodeJS.ProcessEnv): ArborPaths {
  const home = env.HOME && env.HOME.length > 0 ? env.HOME : homedir();
  const arborDir =
    env.ARBOR_HOME && env.ARBOR_HOME.length > 0 ? env.ARBOR_HOME : join(home, ".arbor");
  return {
    home,
    arborDir,
    configFile: join(arborDir, "config.json"),
    sessionsRoot: join(arborDir, "sessions"),
  };
}

/** The sessions directory of one working directory, named the way pi names it. */
export function sessionDirFor(paths: ArborPaths, cwd: string): string {
  return join(paths.sessionsRoot, basename(defaultSessionDir("/", cwd)));
}
