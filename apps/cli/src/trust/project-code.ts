import { createHash } from "node:crypto";
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { EXTENSIONS_DIR } from "@arbor/orchestration";

/** Code of a project that `arbor` would run at start: its `.arbor/extensions/`. */
export interface ProjectCode {
  /** The project's real path: the key trust is remembered under. */
  projectRealPath: string;
  /** `.arbor/extensions` as it appears in the project. */
  extensionsDir: string;
  /** Where it really is (a symlink resolved); may be outside the project. */
  extensionsRealDir: string;
  /** `sha256:` over every file's relative path and contents. */
  contentHash: string;
  /** How many files the hash covers. */
  fileCount: number;
}

/** Directories that are never the extensions' own code. */
const SKIPPED_DIRS = new Set(["node_modules", ".git"]);
/** A bound, so a hostile symlink into a huge tree cannot stall the start. */
const MAX_FILES = 5000;

/**
 * Finds the code a project would make `arbor` run: the files of its `.arbor/extensions/`
 * (followed when it is a symlink). `undefined` when there is none, so nothing needs trust.
 * Code those files import from elsewhere is not covered by the hash.
 */
export async function findProjectCode(projectRoot: string): Promise<ProjectCode | undefined> {
  const extensionsDir = join(projectRoot, EXTENSIONS_DIR);
  let extensionsRealDir: string;
  try {
    extensionsRealDir = await realpath(extensionsDir);
    if (!(await stat(extensionsRealDir)).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  const files: string[] = [];
  await collectFiles(extensionsRealDir, files, new Set());
  if (files.length === 0) return undefined;
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    const content = await readFile(file).catch(() => Buffer.alloc(0));
    hash.update(`${relative(extensionsRealDir, file)}\0`);
    hash.update(createHash("sha256").update(content).digest("hex"));
    hash.update("\n");
  }
  return {
    projectRealPath: await realpath(projectRoot),
    extensionsDir,
    extensionsRealDir,
    contentHash: `sha256:${hash.digest("hex")}`,
    fileCount: files.length,
  };
}

async function collectFiles(dir: string, files: string[], seen: Set<string>): Promise<void> {
  const real = await realpath(dir).catch(() => dir);
  if (seen.has(real)) return; // a symlink loop
  seen.add(real);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    if (files.length >= MAX_FILES) return;
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isDirectory()) await collectFiles(path, files, seen);
    else if (info?.isFile()) files.push(path);
  }
}
