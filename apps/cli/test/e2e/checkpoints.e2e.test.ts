import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { FakeProviderServer } from "@arbor/providers/test";
import { CHECKPOINT_CUSTOM_TYPE, readArborEntry } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

// Checkpoints in the real binary: the app records them around the model's writes, `/diff`
// shows this turn's files, `/rewind` and the tree's `f` bring files back, and the
// `arbor rewind` and `arbor checkpoints` commands work on the session once it is closed.

const execFileAsync = promisify(execFile);
let server: FakeProviderServer;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];
const AFTER_TOOL = "tool finished";

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "first write": {
        blocks: [
          { type: "toolCall", name: "write", arguments: { path: "a.txt", content: "one\n" } },
        ],
      },
      "second write": {
        blocks: [{ type: "toolCall", name: "bash", arguments: { command: "echo two > a.txt" } }],
      },
    },
    afterTool: AFTER_TOOL,
  });
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await server.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

const readProject = (path: string) =>
  readFile(join(sandbox.project, path), "utf8").catch(() => undefined);

/** The checkpoint entries of the newest session, in the order written. */
async function checkpoints() {
  const session = await sandbox.openLatestSession();
  try {
    return session.getEntries().flatMap((entry) => {
      const data = readArborEntry(entry, CHECKPOINT_CUSTOM_TYPE);
      return data ? [{ id: entry.id, ...data }] : [];
    });
  } finally {
    await session.close();
  }
}

describe("checkpoints in the app and on the command line", () => {
  it("records checkpoints, shows /diff, rewinds with /rewind and the tree, then arbor rewind and arbor checkpoints", async () => {
    const env = sandbox.env(server.openaiBaseURL);
    const terminal = TmuxTerminal.start({
      cwd: sandbox.project,
      env,
      args: ["--approval", "yolo"],
    });
    terminals.push(terminal);
    await terminal.waitFor("/help for commands");
    terminal.type("first write");
    terminal.press("Enter");
    await terminal.waitFor((screen) => screen.split(AFTER_TOOL).length - 1 >= 1, 20_000);
    await terminal.waitFor("/help for commands");
    terminal.type("second write");
    terminal.press("Enter");
    await terminal.waitFor((screen) => screen.split(AFTER_TOOL).length - 1 >= 2, 20_000);
    expect(await readProject("a.txt")).toBe("two\n");

    terminal.type("/diff");
    terminal.press("Enter");
    await terminal.waitFor(/modified\s+a\.txt/);

    // The state after the first write, brought back by id; the conversation stays.
    const recorded = await checkpoints();
    const afterFirst = recorded.find((entry) => entry.reason === "after_tool");
    expect(afterFirst?.changed).toEqual(["a.txt"]);
    terminal.type(`/rewind ${afterFirst?.id} --code`);
    terminal.press("Enter");
    await terminal.waitFor("restore a.txt");
    expect(await readProject("a.txt")).toBe("one\n");

    // Another arbor cannot rewind the session while this one holds it.
    const refused = await runArbor(["rewind", "--code"], { cwd: sandbox.project, env });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("Another arbor is using this session");
    expect(await readProject("a.txt")).toBe("one\n");

    // The tree: choose the first prompt, f goes there with its files (before any write).
    terminal.type("/tree");
    terminal.press("Enter");
    await terminal.waitFor("Session tree");
    terminal.type("first write");
    terminal.press("Enter");
    await terminal.waitFor("f: go and bring the files back");
    terminal.type("f");
    await terminal.waitFor("delete a.txt");
    expect(await readProject("a.txt")).toBeUndefined();
    terminal.type("/quit");
    terminal.press("Enter");
    expect(await terminal.exitCode()).toBe(0);

    const listed = await runArbor(["checkpoints"], { cwd: sandbox.project, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/after_tool\s+1 file: a\.txt/);
    expect(listed.stdout).toContain("before_rewind");

    // Redo from the command line: a dry run first, then the files of the second write.
    const afterSecond = (await checkpoints()).filter((entry) => entry.reason === "after_tool")[1];
    const dry = await runArbor(["rewind", "--dry-run", "--both", afterSecond?.id ?? ""], {
      cwd: sandbox.project,
      env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("would restore a.txt");
    expect(await readProject("a.txt")).toBeUndefined();
    const redo = await runArbor(["rewind", afterSecond?.id ?? ""], { cwd: sandbox.project, env });
    expect(redo.code).toBe(0);
    expect(redo.stdout).toContain("restore a.txt");
    expect(redo.stdout).toContain(`moved to ${afterSecond?.id}`);
    expect(await readProject("a.txt")).toBe("two\n");
  }, 90_000);

  it("arbor fork --worktree puts an entry's files in a new git worktree beside the project", async () => {
    const env = sandbox.env(server.openaiBaseURL);
    const git = (...gitArgs: string[]) =>
      execFileAsync("git", gitArgs, {
        cwd: sandbox.project,
        env: {
          ...process.env,
          HOME: sandbox.home,
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      });
    await sandbox.writeProjectFile("tracked.txt", "tracked\n");
    await git("init", "-q");
    await git("add", "tracked.txt");
    await git("commit", "-qm", "start");
    const first = await runArbor(["-p", "--approval", "yolo", "first write"], {
      cwd: sandbox.project,
      env,
    });
    expect(first.code, first.stderr).toBe(0);
    const second = await runArbor(["-c", "-p", "--approval", "yolo", "second write"], {
      cwd: sandbox.project,
      env,
    });
    expect(second.code, second.stderr).toBe(0);
    await git("rm", "-q", "tracked.txt");
    await git("commit", "-qm", "tracked goes");
    const afterFirst = (await checkpoints()).find((entry) => entry.reason === "after_tool");
    const fork = await runArbor(["fork", "--worktree", "../side", afterFirst?.id ?? ""], {
      cwd: sandbox.project,
      env,
    });
    expect(fork.code, fork.stderr).toBe(0);
    const side = join(sandbox.root, "side");
    expect(fork.stdout).toMatch(/^forked \S+ from /);
    expect(fork.stdout).toContain("(a git worktree)");
    expect(fork.stdout).toContain(`cd ${side} && arbor -s`);
    // The entry's files: a.txt as the first write left it, tracked.txt as it was then.
    expect(await readFile(join(side, "a.txt"), "utf8")).toBe("one\n");
    expect(await readFile(join(side, "tracked.txt"), "utf8")).toBe("tracked\n");
    expect(await readProject("a.txt")).toBe("two\n");
    expect((await git("worktree", "list")).stdout).toContain(side);
    expect(await sandbox.sessionFiles()).toHaveLength(2);
    const again = await runArbor(["fork", "--worktree", "../side"], { cwd: sandbox.project, env });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists already");
  }, 90_000);
});
