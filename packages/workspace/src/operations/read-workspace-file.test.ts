import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readWorkspaceFile } from "./read-workspace-file.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

let base: string;
let project: string;
const SECRET = "TOP-SECRET-8c1f0e";

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-read-file-"));
  project = join(base, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "secret.txt"), SECRET);
  await writeFile(join(project, "src", "ok.txt"), "inside text");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function refusal(path: string, root = project): Promise<WorkspaceToolError> {
  const error = await readWorkspaceFile(root, path).then(
    (text) => {
      throw new Error(`expected a refusal, read: ${text.slice(0, 40)}`);
    },
    (caught: unknown) => caught,
  );
  expect(WorkspaceToolError.isInstance(error)).toBe(true);
  expect(String((error as Error).message)).not.toContain(SECRET);
  return error as WorkspaceToolError;
}

describe("readWorkspaceFile confinement", () => {
  it("refuses every way out of the workspace: .., absolute, /proc/self/root, symlinks to files and folders, chains", async () => {
    await symlink("/etc/passwd", join(project, "passwd"));
    await symlink(join(base, "outside"), join(project, "out-dir"));
    await symlink(join(base, "outside", "secret.txt"), join(project, "hop2"));
    await symlink("hop2", join(project, "hop1"));
    await symlink("/proc/self/environ", join(project, "env"));
    await symlink("/dev/zero", join(project, "zero"));
    const ways = [
      "../outside/secret.txt",
      "./../outside/secret.txt",
      "src/../../outside/secret.txt",
      join(base, "outside", "secret.txt"),
      "/etc/passwd",
      "/proc/self/environ",
      `/proc/self/root${join(base, "outside", "secret.txt")}`,
      "/proc/self/root/etc/passwd",
      "passwd",
      "out-dir/secret.txt",
      "out-dir/./secret.txt",
      "hop1",
      "env",
      "zero",
    ];
    for (const way of ways) {
      const error = await refusal(way);
      expect(error.code, way).toBe("outside_workspace");
      expect(error.message).toContain("outside the working directory");
    }
  });

  it("reads files inside, also through a link that stays inside, and says plainly what does not exist", async () => {
    await symlink(join(project, "src", "ok.txt"), join(project, "link-inside"));
    await symlink("src", join(project, "src-link"));
    expect(await readWorkspaceFile(project, "src/ok.txt")).toBe("inside text");
    expect(await readWorkspaceFile(project, "link-inside")).toBe("inside text");
    expect(await readWorkspaceFile(project, "src-link/ok.txt")).toBe("inside text");
    expect(await readWorkspaceFile(project, join(project, "src", "ok.txt"))).toBe("inside text");
    await symlink(join(base, "nowhere"), join(project, "dangling"));
    expect((await refusal("dangling")).code).toBe("not_found");
    expect((await refusal("missing.txt")).code).toBe("not_found");
    expect((await refusal("src/ok.txt/")).code).toBe("not_found");
    expect((await refusal("a\0b")).code).toBe("invalid_path");
    await symlink("loop-b", join(project, "loop-a"));
    await symlink("loop-a", join(project, "loop-b"));
    expect((await refusal("loop-a")).code).toBe("symlink_loop");
  });
});

describe("readWorkspaceFile on files that are not regular", () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  it("refuses a FIFO at once without opening it, devices, sockets and directories", async () => {
    execFileSync("mkfifo", [join(project, "pipe")]);
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(join(project, "sock"), resolve));
    const started = Date.now();
    const cases: Array<[string, string, string]> = [
      [project, "pipe", "a named pipe (FIFO)"],
      [project, "sock", "a socket"],
      [project, "src", "a directory"],
      [project, ".", "a directory"],
      ["/dev", "zero", "a character device"],
      ["/dev", "null", "a character device"],
      ["/dev", "urandom", "a character device"],
    ];
    for (const [root, path, kind] of cases) {
      const error = await refusal(path, root);
      expect(error.code, path).toBe("not_a_regular_file");
      expect(error.message).toContain(kind);
    }
    // A FIFO opened for reading would block until a writer comes: this is far below that.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("reads at most the cap: the head of a long file and a note, never the whole file", async () => {
    const line = "0123456789abcdef\n";
    await writeFile(join(project, "big.txt"), line.repeat(20_000));
    const text = await readWorkspaceFile(project, "big.txt", { maxBytes: 1000 });
    expect(text.startsWith(line.repeat(58))).toBe(true);
    expect(text).toContain("[read_file: big.txt has 340000 bytes; only the first 1000 are shown.]");
    expect(text.length).toBeLessThan(1200);
    // A multi-byte character at the cut is dropped whole, not split into garbage.
    await writeFile(join(project, "wide.txt"), "é".repeat(1000));
    const wide = await readWorkspaceFile(project, "wide.txt", { maxBytes: 999 });
    expect(wide.split("\n")[0]).toBe("é".repeat(499));
    await writeFile(join(project, "bin.dat"), Buffer.from([1, 2, 0, 3]));
    expect(await readWorkspaceFile(project, "bin.dat")).toContain("looks like a binary file");
  });
});

describe("readWorkspaceFile when the file is swapped between the check and the open", () => {
  it("refuses a final symlink, a folder swapped for a link out, and a FIFO swapped in", async () => {
    await mkdir(join(project, "dir"));
    await writeFile(join(project, "dir", "secret.txt"), "inside version");
    await writeFile(join(project, "plain.txt"), "inside version");
    const swaps: Array<[string, () => Promise<void>, string]> = [
      [
        "plain.txt",
        async () => {
          await unlink(join(project, "plain.txt"));
          await symlink(join(base, "outside", "secret.txt"), join(project, "plain.txt"));
        },
        "outside_workspace",
      ],
      [
        "dir/secret.txt",
        async () => {
          await rename(join(project, "dir"), join(project, "dir-old"));
          await symlink(join(base, "outside"), join(project, "dir"));
        },
        "outside_workspace",
      ],
      [
        "src/ok.txt",
        async () => {
          await unlink(join(project, "src", "ok.txt"));
          execFileSync("mkfifo", [join(project, "src", "ok.txt")]);
        },
        "not_a_regular_file",
      ],
    ];
    for (const [path, swap, code] of swaps) {
      const error = await readWorkspaceFile(project, path, { beforeOpen: swap }).then(
        (text) => new Error(`read: ${text}`),
        (caught: unknown) => caught,
      );
      expect(WorkspaceToolError.isInstance(error), path).toBe(true);
      expect((error as WorkspaceToolError).code, path).toBe(code);
      expect((error as Error).message).not.toContain(SECRET);
    }
  });
});
