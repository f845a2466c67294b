import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openSessionFile, type Session } from "@arbor/session-store";

/**
 * The project stream rule the fake server's "print a greeting" answer breaks on its first
 * attempt (it writes `console.log`).
 */
export const LOGGER_RULE = {
  path: join(".arbor", "rules", "use-the-logger.md"),
  text: '---\ncondition: "console\\\\.log"\n---\nUse the logger, never console.log.\n',
};

/** A throw-away HOME and project directory for one test. */
export interface Sandbox {
  root: string;
  home: string;
  project: string;
  /** The environment `arbor` gets: HOME in the sandbox, the fake server as the provider. */
  env(baseURL: string): Record<string, string>;
  /** Writes `~/.arbor/config.json` (any text, to test broken files too). */
  writeConfig(text: string): Promise<void>;
  /** Writes a file under the project directory, creating its folders. */
  writeProjectFile(relativePath: string, text: string): Promise<void>;
  /** Every session file under the sandbox's `~/.arbor/sessions`. */
  sessionFiles(): Promise<string[]>;
  /** Opens the only (or newest) session file read-only. */
  openLatestSession(): Promise<Session>;
  remove(): Promise<void>;
}

/** Creates a {@link Sandbox}. */
export async function createSandbox(): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), "arbor-cli-e2e-"));
  const home = join(root, "home");
  const project = join(root, "project");
  await mkdir(home, { recursive: true });
  await mkdir(project, { recursive: true });
  const sessionFiles = async (): Promise<string[]> => {
    const base = join(home, ".arbor", "sessions");
    const dirs = await readdir(base).catch(() => [] as string[]);
    const files: string[] = [];
    for (const dir of dirs) {
      for (const name of await readdir(join(base, dir)).catch(() => [] as string[])) {
        if (name.endsWith(".jsonl")) files.push(join(base, dir, name));
      }
    }
    return files.sort();
  };
  return {
    root,
    home,
    project,
    env: (baseURL) => ({ HOME: home, OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "test-key" }),
    writeConfig: async (text) => {
      await mkdir(join(home, ".arbor"), { recursive: true });
      await writeFile(join(home, ".arbor", "config.json"), text);
    },
    writeProjectFile: async (relativePath, text) => {
      const path = join(project, relativePath);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text);
    },
    sessionFiles,
    openLatestSession: async () => {
      const files = await sessionFiles();
      const latest = files.at(-1);
      if (!latest) throw new Error("no session file was written");
      return openSessionFile(latest, { readOnly: true });
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
