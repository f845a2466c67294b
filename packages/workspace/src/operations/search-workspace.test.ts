import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findWorkspaceFiles } from "./find-workspace-files.js";
import { globMatcher } from "./glob-pattern.js";
import { ripgrepAvailable } from "./ripgrep.js";
import { searchWorkspace } from "./search-workspace.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

let base: string;
let project: string;
const SECRET = "NEEDLE-OUTSIDE-77";

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-search-"));
  project = join(base, "project");
  await mkdir(join(project, "src", "deep"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "secret.ts"), `const x = "${SECRET}";\n`);
  await writeFile(join(project, "src", "a.ts"), "const needle = 1;\nconst other = 2;\n");
  await writeFile(join(project, "src", "deep", "b.ts"), "// NEEDLE here\n");
  await writeFile(join(project, "src", "c.md"), "needle in docs\n");
  await writeFile(join(project, "bin.dat"), Buffer.from("needle\0needle"));
  await symlink(join(base, "outside"), join(project, "out-dir"));
  await symlink(join(base, "outside", "secret.ts"), join(project, "out-file.ts"));
  await symlink(".", join(project, "loop"));
  execFileSync("mkfifo", [join(project, "src", "pipe.ts")]);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const engines = [
  { name: "JavaScript", ripgrep: false as const },
  { name: "ripgrep", ripgrep: "rg" },
];

describe.each(engines)("grep and find with $name", ({ name, ripgrep }) => {
  beforeEach(async (context) => {
    if (ripgrep !== false && !(await ripgrepAvailable(ripgrep))) context.skip();
  });

  it("finds matching lines as path:line:text, never through links out, FIFOs or binary files", async () => {
    const started = Date.now();
    const text = await searchWorkspace(project, { pattern: "needle|NEEDLE" }, { ripgrep });
    expect(text.split("\n").sort()).toEqual([
      "src/a.ts:1:const needle = 1;",
      "src/c.md:1:needle in docs",
      "src/deep/b.ts:1:// NEEDLE here",
    ]);
    expect(text).not.toContain(SECRET);
    expect(Date.now() - started).toBeLessThan(10_000);
    const inSrc = await searchWorkspace(
      project,
      { pattern: "needle", path: "src", glob: "*.ts", ignoreCase: true },
      { ripgrep },
    );
    // ripgrep searches in parallel: the order of files varies.
    expect(inSrc.split("\n").sort()).toEqual([
      "src/a.ts:1:const needle = 1;",
      "src/deep/b.ts:1:// NEEDLE here",
    ]);
    expect(await searchWorkspace(project, { pattern: "a.ts(", literal: true }, { ripgrep })).toBe(
      "No matches.",
    );
  });

  it("skips what the repository's .gitignore names", async () => {
    await mkdir(join(project, ".git"));
    await writeFile(join(project, ".gitignore"), "# built\ndist/\n*.log\n/src/deep/generated.ts\n");
    await mkdir(join(project, "dist"));
    await writeFile(join(project, "dist", "out.ts"), "needle built\n");
    await writeFile(join(project, "src", "run.log"), "needle logged\n");
    await writeFile(join(project, "src", "deep", "generated.ts"), "needle generated\n");
    const text = await searchWorkspace(project, { pattern: "needle" }, { ripgrep });
    expect(text.split("\n").sort()).toEqual([
      "src/a.ts:1:const needle = 1;",
      "src/c.md:1:needle in docs",
    ]);
    expect(await findWorkspaceFiles(project, "*.ts", ".", { ripgrep })).toBe(
      ["src/a.ts", "src/deep/b.ts"].join("\n"),
    );
  });

  it("refuses paths out, and stops at the match cap with a note", async () => {
    for (const path of ["out-dir", "..", join(base, "outside"), "out-file.ts"]) {
      const error = await searchWorkspace(project, { pattern: "x", path }, { ripgrep }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(WorkspaceToolError.isInstance(error), `${name} ${path}`).toBe(true);
      expect((error as WorkspaceToolError).code).toBe("outside_workspace");
    }
    await writeFile(join(project, "many.txt"), "hit\n".repeat(50));
    const capped = await searchWorkspace(project, { pattern: "hit", maxMatches: 10 }, { ripgrep });
    const lines = capped.split("\n");
    expect(lines).toHaveLength(11);
    expect(lines.at(-1)).toBe("[grep stopped at 10 matches; narrow the pattern or the path]");
  });

  it("finds files by name or path glob, skipping links out and special files", async () => {
    expect(await findWorkspaceFiles(project, "*.ts", ".", { ripgrep })).toBe(
      ["src/a.ts", "src/deep/b.ts"].join("\n"),
    );
    expect(await findWorkspaceFiles(project, "src/**/*.{ts,md}", ".", { ripgrep })).toBe(
      ["src/a.ts", "src/c.md", "src/deep/b.ts"].join("\n"),
    );
    expect(await findWorkspaceFiles(project, "*.ts", "src/deep", { ripgrep })).toBe(
      "src/deep/b.ts",
    );
    expect(await findWorkspaceFiles(project, "*.nothing", ".", { ripgrep })).toBe(
      "No files found.",
    );
    const capped = await findWorkspaceFiles(project, "*", ".", { ripgrep, maxResults: 2 });
    expect(capped.split("\n")).toHaveLength(3);
  });
});

describe("the JS search", () => {
  it("names an invalid regular expression", async () => {
    const error = await searchWorkspace(project, { pattern: "(" }, { ripgrep: false }).catch(
      (caught: unknown) => caught,
    );
    expect((error as WorkspaceToolError).code).toBe("invalid_pattern");
  });

  it("matches globs as ripgrep does: names without /, paths with it", () => {
    expect(globMatcher("*.ts")("a/b/c.ts")).toBe(true);
    expect(globMatcher("*.ts")("a/b/c.tsx")).toBe(false);
    expect(globMatcher("src/*.ts")("src/deep/b.ts")).toBe(false);
    expect(globMatcher("src/**/*.ts")("src/b.ts")).toBe(true);
    expect(globMatcher("src/**/*.ts")("src/x/y/b.ts")).toBe(true);
    expect(globMatcher("?.{md,txt}")("a.txt")).toBe(true);
    expect(globMatcher("[ab].js")("c.js")).toBe(false);
    expect(globMatcher("a+b(1).js")("a+b(1).js")).toBe(true);
  });
});
