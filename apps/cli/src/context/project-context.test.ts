import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  contextPrompt,
  contextSummary,
  loadProjectContext,
  MAX_CONTEXT_FILE_BYTES,
} from "./project-context.js";

let base: string;
let repo: string;
let home: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-context-"));
  repo = join(base, "work", "repo");
  home = join(base, "home", ".arbor");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(join(repo, "packages", "app", "src"), { recursive: true });
  await mkdir(home, { recursive: true });
  // Above the repository: never read.
  await writeFile(join(base, "work", "AGENTS.md"), "ABOVE THE REPO");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("loadProjectContext", () => {
  it("reads home, then the repository root down to the working directory; AGENTS.md wins over CLAUDE.md", async () => {
    await writeFile(join(home, "AGENTS.md"), "home rules");
    await writeFile(join(repo, "AGENTS.md"), "root agents");
    await writeFile(join(repo, "CLAUDE.md"), "root claude (ignored)");
    await writeFile(join(repo, "packages", "CLAUDE.md"), "packages claude");
    await writeFile(join(repo, "packages", "app", "AGENTS.md"), "app agents");
    const cwd = join(repo, "packages", "app", "src");
    const context = await loadProjectContext(cwd, home);
    expect(context.repositoryRoot).toBe(repo);
    expect(context.files.map((file) => [file.scope, file.text])).toEqual([
      ["home", "home rules"],
      ["project", "root agents"],
      ["project", "packages claude"],
      ["project", "app agents"],
    ]);
    const prompt = contextPrompt(context) ?? "";
    expect(prompt.indexOf("root agents")).toBeLessThan(prompt.indexOf("app agents"));
    expect(prompt).not.toContain("ABOVE THE REPO");
    expect(prompt).not.toContain("root claude");
    expect(contextSummary(context, cwd).split("\n")).toEqual([
      `home     ${join(home, "AGENTS.md")}  10 bytes`,
      "project  ../../../AGENTS.md  11 bytes",
      "project  ../../CLAUDE.md  15 bytes",
      "project  ../AGENTS.md  10 bytes",
    ]);
  });

  it("outside a repository reads the working directory only, and says how to add a file when there is none", async () => {
    const plain = join(base, "plain");
    await mkdir(plain);
    expect((await loadProjectContext(plain, home)).files).toEqual([]);
    expect(contextPrompt(await loadProjectContext(plain, home))).toBeUndefined();
    expect(contextSummary(await loadProjectContext(plain, home), plain)).toContain(
      "No AGENTS.md or CLAUDE.md is loaded",
    );
    await writeFile(join(plain, "CLAUDE.md"), "plain claude");
    expect((await loadProjectContext(plain, home)).files.map((file) => file.text)).toEqual([
      "plain claude",
    ]);
  });

  it("skips a FIFO or a folder named AGENTS.md without blocking, and caps a huge file", async () => {
    execFileSync("mkfifo", [join(repo, "AGENTS.md")]);
    await mkdir(join(repo, "packages", "AGENTS.md"));
    await writeFile(
      join(repo, "packages", "app", "AGENTS.md"),
      "x".repeat(MAX_CONTEXT_FILE_BYTES + 10),
    );
    const started = Date.now();
    const context = await loadProjectContext(join(repo, "packages", "app"), home);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(context.problems).toHaveLength(2);
    expect(context.problems[0]).toContain("not a regular file");
    expect(context.files).toHaveLength(1);
    expect(context.files[0]?.text).toHaveLength(MAX_CONTEXT_FILE_BYTES);
    expect(contextPrompt(context)).toContain(
      `[only the first ${MAX_CONTEXT_FILE_BYTES} of ${MAX_CONTEXT_FILE_BYTES + 10} bytes are included]`,
    );
  });
});
