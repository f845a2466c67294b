import { execFileSync } from "node:child_process";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  symlink,
  unlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editWorkspaceFile } from "./edit-workspace-file.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";
import { writeWorkspaceFile } from "./write-workspace-file.js";

let base: string;
let project: string;
const SECRET = "OUTSIDE-ORIGINAL-3b9d";

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-write-file-"));
  project = join(base, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "target.txt"), SECRET);
  await symlink(join(base, "outside", "target.txt"), join(project, "file-link"));
  await symlink(join(base, "outside"), join(project, "dir-link"));
  await symlink(join(base, "outside", "new.txt"), join(project, "dangling"));
  execFileSync("mkfifo", [join(project, "pipe")]);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function failure(action: Promise<unknown>): Promise<WorkspaceToolError> {
  const error = await action.then(
    () => new Error("expected a refusal"),
    (caught: unknown) => caught,
  );
  expect(WorkspaceToolError.isInstance(error), String(error)).toBe(true);
  return error as WorkspaceToolError;
}

/** Nothing outside the workspace changed or appeared. */
async function expectOutsideUntouched() {
  expect(await readFile(join(base, "outside", "target.txt"), "utf8")).toBe(SECRET);
  expect((await readdir(join(base, "outside"))).sort()).toEqual(["target.txt"]);
  expect((await readdir(base)).sort()).toEqual(["outside", "project"]);
}

describe("writeWorkspaceFile", () => {
  it("creates files and missing folders inside, and replaces a file's whole content", async () => {
    expect(await writeWorkspaceFile(project, "src/a/b/new.ts", "x\n")).toEqual({
      bytes: 2,
      created: true,
    });
    expect(await readFile(join(project, "src/a/b/new.ts"), "utf8")).toBe("x\n");
    await writeFile(join(project, "long.txt"), "a much longer old content");
    expect(await writeWorkspaceFile(project, "long.txt", "short")).toEqual({
      bytes: 5,
      created: false,
    });
    expect(await readFile(join(project, "long.txt"), "utf8")).toBe("short");
    await writeWorkspaceFile(project, join(project, "abs.txt"), "é");
    expect(await readFile(join(project, "abs.txt"), "utf8")).toBe("é");
  });

  it("refuses every way out: symlinked file, symlinked folder, dangling link, .., absolute, /proc/self/root", async () => {
    const ways: Array<[string, string]> = [
      ["file-link", "not_a_regular_file"],
      ["dangling", "not_a_regular_file"],
      ["dir-link/target.txt", "outside_workspace"],
      ["dir-link/new.txt", "outside_workspace"],
      ["dir-link/sub/new.txt", "outside_workspace"],
      ["../outside/target.txt", "outside_workspace"],
      ["src/../../outside/new.txt", "outside_workspace"],
      ["new-dir/../../outside/new.txt", "outside_workspace"],
      [join(base, "outside", "target.txt"), "outside_workspace"],
      [`/proc/self/root${join(base, "outside", "target.txt")}`, "outside_workspace"],
      ["/tmp/arbor-should-not-exist.txt", "outside_workspace"],
    ];
    for (const [path, code] of ways) {
      const error = await failure(writeWorkspaceFile(project, path, "OVERWRITTEN"));
      expect(error.code, path).toBe(code);
      expect(error.message).not.toContain(SECRET);
    }
    await expectOutsideUntouched();
    expect(await readdir(project)).not.toContain("new-dir");
  });

  it("refuses a FIFO at once, a folder, a NUL, an empty name and text over the cap", async () => {
    const started = Date.now();
    expect((await failure(writeWorkspaceFile(project, "pipe", "x"))).message).toContain(
      "a named pipe (FIFO)",
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await failure(writeWorkspaceFile(project, "src", "x"))).message).toContain(
      "a directory",
    );
    expect((await failure(writeWorkspaceFile(project, "a\0b", "x"))).code).toBe("invalid_path");
    expect((await failure(writeWorkspaceFile(project, "src/", "x"))).code).toBe("invalid_path");
    const big = await failure(
      writeWorkspaceFile(project, "big.txt", "x".repeat(101), { maxBytes: 100 }),
    );
    expect(big.code).toBe("too_large");
    expect(await readdir(project)).not.toContain("big.txt");
  });

  it("refuses a file swapped for a symlink out between the check and the open", async () => {
    await writeFile(join(project, "plain.txt"), "inside");
    const error = await failure(
      writeWorkspaceFile(project, "plain.txt", "OVERWRITTEN", {
        beforeOpen: async () => {
          await unlink(join(project, "plain.txt"));
          await symlink(join(base, "outside", "target.txt"), join(project, "plain.txt"));
        },
      }),
    );
    expect(error.code).toBe("not_a_regular_file");
    await expectOutsideUntouched();
  });
});

describe("editWorkspaceFile", () => {
  it("replaces the one exact match and shows a unified diff with context", async () => {
    await writeFile(join(project, "a.ts"), "one\ntwo\nthree\nfour\nfive\nsix\n");
    const edit = await editWorkspaceFile(project, "a.ts", "three\nfour", "3\n4\n4.5");
    expect(await readFile(join(project, "a.ts"), "utf8")).toBe("one\ntwo\n3\n4\n4.5\nfive\nsix\n");
    expect(edit.line).toBe(3);
    expect(edit.diff).toBe(
      [
        "--- a.ts",
        "+++ a.ts",
        "@@ -1,6 +1,7 @@",
        " one",
        " two",
        "-three",
        "-four",
        "+3",
        "+4",
        "+4.5",
        " five",
        " six",
      ].join("\n"),
    );
    // Mid-line text, a match ending in a line break, CRLF kept as it is.
    await writeFile(join(project, "b.txt"), "let x = 1;\r\nlet y = 2;\r\n");
    await editWorkspaceFile(project, "b.txt", "x = 1", "x = 10");
    await editWorkspaceFile(project, "b.txt", "let y = 2;\r\n", "");
    expect(await readFile(join(project, "b.txt"), "utf8")).toBe("let x = 10;\r\n");
  });

  it("refuses no match, several matches (overlapping too) and an empty oldText, leaving the file as it was", async () => {
    const text = "aaa\nfoo();\nfoo();\n  indented\n";
    await writeFile(join(project, "c.ts"), text);
    const cases: Array<[string, string, string]> = [
      ["bar()", "no_match", "was not found"],
      ["indented\n  ", "no_match", "was not found"],
      ["foo();", "ambiguous_match", "occurs 2 times"],
      ["aa", "ambiguous_match", "occurs 2 times"],
      ["", "invalid_path", "oldText is empty"],
    ];
    for (const [oldText, code, words] of cases) {
      const error = await failure(editWorkspaceFile(project, "c.ts", oldText, "X"));
      expect(error.code, oldText).toBe(code);
      expect(error.message).toContain(words);
    }
    expect(await readFile(join(project, "c.ts"), "utf8")).toBe(text);
  });

  it("refuses links out, FIFOs and binary files; the outside stays as it was", async () => {
    await writeFile(join(project, "bin.dat"), Buffer.from([0x41, 0, 0x42]));
    expect((await failure(editWorkspaceFile(project, "file-link", "OUTSIDE", "X"))).code).toBe(
      "outside_workspace",
    );
    expect(
      (await failure(editWorkspaceFile(project, "dir-link/target.txt", "OUTSIDE", "X"))).code,
    ).toBe("outside_workspace");
    expect((await failure(editWorkspaceFile(project, "pipe", "x", "y"))).code).toBe(
      "not_a_regular_file",
    );
    expect((await failure(editWorkspaceFile(project, "bin.dat", "A", "B"))).code).toBe(
      "binary_file",
    );
    await expectOutsideUntouched();
  });
});
