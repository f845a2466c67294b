import { constants } from "node:fs";
import { lstat, open, realpath } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";

/** The file names read in each folder, the first found winning. */
export const CONTEXT_FILE_NAMES = ["AGENTS.md", "CLAUDE.md"] as const;
/** The most bytes read of one context file. */
export const MAX_CONTEXT_FILE_BYTES = 64 * 1024;

/** One instructions file that was read. */
export interface ContextFile {
  /** Its absolute path. */
  path: string;
  /** Where it comes from: the user's home config, or a folder of the project. */
  scope: "home" | "project";
  text: string;
  /** Its size in bytes (more than was read when `truncated`). */
  bytes: number;
  truncated: boolean;
}

/** The instructions files of a run, in the order they are given to the model. */
export interface ProjectContext {
  files: ContextFile[];
  /** The repository root (the nearest folder up from the working directory with `.git`), if any. */
  repositoryRoot: string | undefined;
  /** Files that exist but could not be used, and why. */
  problems: string[];
}

/** The nearest folder from `dir` upwards that holds `.git`, or undefined. */
export async function findRepositoryRoot(dir: string): Promise<string | undefined> {
  let current = dir;
  for (;;) {
    if (
      await lstat(join(current, ".git")).then(
        () => true,
        () => false,
      )
    )
      return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

/** The folders from `root` down to `dir`, both included (`dir` alone when it is not below `root`). */
export function foldersDown(root: string, dir: string): string[] {
  const rel = relative(root, dir);
  if (rel.startsWith("..") || rel === "") return [dir];
  const folders = [root];
  let current = root;
  for (const part of rel.split(sep)) {
    current = join(current, part);
    folders.push(current);
  }
  return folders;
}

/** Reads a context file: a regular file only (a FIFO or device is skipped), capped. */
async function readContextFile(
  path: string,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error("not a regular file");
    const buffer = Buffer.alloc(Math.min(info.size, MAX_CONTEXT_FILE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return {
      text: buffer.subarray(0, bytesRead).toString("utf8"),
      bytes: info.size,
      truncated: info.size > MAX_CONTEXT_FILE_BYTES,
    };
  } finally {
    await handle.close();
  }
}

/** The first context file of a folder that exists, read; problems are collected. */
async function contextFileIn(
  folder: string,
  scope: ContextFile["scope"],
  problems: string[],
): Promise<ContextFile | undefined> {
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(folder, name);
    const exists = await lstat(path).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    try {
      return { path, scope, ...(await readContextFile(path)) };
    } catch (error) {
      problems.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }
  return undefined;
}

/**
 * Finds the instructions for the model: `AGENTS.md` (or `CLAUDE.md` where a folder has no
 * `AGENTS.md`) of the home config folder, then of each folder from the repository root
 * down to the working directory (the working directory alone outside a repository).
 * Each file is read up to {@link MAX_CONTEXT_FILE_BYTES}; one that cannot be read is
 * named in `problems` and skipped.
 */
export async function loadProjectContext(
  cwd: string,
  homeConfigDir: string,
): Promise<ProjectContext> {
  const problems: string[] = [];
  const files: ContextFile[] = [];
  const home = await contextFileIn(homeConfigDir, "home", problems);
  if (home) files.push(home);
  const real = await realpath(cwd).catch(() => cwd);
  const repositoryRoot = await findRepositoryRoot(real);
  for (const folder of foldersDown(repositoryRoot ?? real, real)) {
    const file = await contextFileIn(folder, "project", problems);
    if (file && file.path !== home?.path) files.push(file);
  }
  return { files, repositoryRoot, problems };
}

/**
 * The system prompt text of the context files: each under a heading naming its file, in
 * order (general first, the working directory's last, so the nearest instructions come last).
 */
export function contextPrompt(context: ProjectContext): string | undefined {
  if (context.files.length === 0) return undefined;
  const parts = context.files.map((file) => {
    const note = file.truncated
      ? `\n[only the first ${MAX_CONTEXT_FILE_BYTES} of ${file.bytes} bytes are included]`
      : "";
    return `## ${file.path}\n\n${file.text.trim()}${note}`;
  });
  return `# Project instructions\n\nInstructions from AGENTS.md / CLAUDE.md files; later (nearer) files take precedence.\n\n${parts.join("\n\n")}`;
}

/** What `/context` shows: each file with its size, or how to add one. */
export function contextSummary(context: ProjectContext, cwd: string): string {
  const lines = context.files.map((file) => {
    const where = file.scope === "home" ? file.path : relative(cwd, file.path) || file.path;
    const cut = file.truncated ? ` (cut to ${MAX_CONTEXT_FILE_BYTES})` : "";
    return `${file.scope === "home" ? "home   " : "project"}  ${where}  ${file.bytes} bytes${cut}`;
  });
  if (lines.length === 0) {
    lines.push(
      "No AGENTS.md or CLAUDE.md is loaded. Put instructions for the model in AGENTS.md at the repository root (or any folder down to this one), or in ~/.arbor/AGENTS.md for every project.",
    );
  }
  for (const problem of context.problems) lines.push(`skipped ${problem}`);
  return lines.join("\n");
}
