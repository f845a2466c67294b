import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySessionStore, type Session } from "@arbor/session-store";
import type { AgentTool } from "@arbor/turn-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashWorkspace } from "../test/index.js";
import { workspaceTools } from "../workspace-tools.js";
import { openCheckpointStore } from "./checkpoint-store.js";
import { type SessionCheckpoints, sessionCheckpoints } from "./session-checkpoints.js";

// Hostile workspaces under the session binding: a full disk, 100,000 files, a 1 GiB ignored
// folder, and files outside the workspace that a command changed.

let base: string;
let workspace: string;
let session: Session;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-checkpoints-session-hostile-"));
  workspace = join(base, "project");
  await mkdir(workspace);
  session = await new MemorySessionStore().create({ cwd: workspace });
}, 60_000);
afterEach(async () => {
  if (mounted) {
    execFileSync("umount", [workspace]);
    mounted = false;
  }
  await rm(base, { recursive: true, force: true });
}, 300_000);

let mounted = false;
let calls = 0;

async function bind(
  maxFileBytes?: number,
): Promise<{ checkpoints: SessionCheckpoints; tools: AgentTool[]; storeDir: string }> {
  const store = await openCheckpointStore({
    workspace,
    home: join(base, "home"),
    ...(maxFileBytes !== undefined ? { maxFileBytes } : {}),
  });
  if (!store.available) throw new Error(store.reason);
  const checkpoints = sessionCheckpoints({
    store,
    onError: (error) => {
      throw error;
    },
  });
  const tools = checkpoints.bindTools(
    workspaceTools(workspace, { env: { PATH: "/usr/bin:/bin" } }),
    () => session,
  );
  return { checkpoints, tools, storeDir: store.storeDir };
}

async function callTool(tools: AgentTool[], name: string, args: Record<string, unknown>) {
  const tool = tools.find((candidate) => candidate.name === name) as AgentTool;
  const toolCallId = `call-${++calls}`;
  await tool.execute(tool.parameters.parse(args) as never, {
    signal: new AbortController().signal,
    toolCallId,
  });
  return session.appendMessage({
    role: "toolResult",
    toolCallId,
    toolName: name,
    content: [{ type: "text", text: "ok" }],
    isError: false,
    timestamp: Date.now(),
  });
}

/** Whether this process may mount a tmpfs (root in a container that allows it). */
function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = join(tmpdir(), `arbor-tmpfs-probe-${process.pid}`);
  try {
    execFileSync("mkdir", ["-p", probe]);
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe], { stdio: "ignore" });
    execFileSync("umount", [probe]);
    return true;
  } catch {
    return false;
  } finally {
    execFileSync("rm", ["-rf", probe]);
  }
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

describe("checkpoints of hostile workspaces, through the session binding", () => {
  // Skipped where no tmpfs can be mounted (not root, or a container without the right).
  it.skipIf(!canMountTmpfs())(
    "stops a restore on a full disk with a typed error, leaving the workspace as it was",
    async () => {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", workspace]);
      mounted = true;
      await writeFile(join(workspace, ".gitignore"), "filler\n");
      const { checkpoints, tools } = await bind();
      const prompt = await session.appendMessage({
        role: "user",
        content: "go",
        timestamp: Date.now(),
      });
      // The entry's state has a 1.5 MB file; later it is gone and the disk fills up.
      await callTool(tools, "bash", {
        command: "head -c 1500000 /dev/urandom > data.bin && echo one > note.txt",
      });
      const withData = session.getLeafId() as string;
      await callTool(tools, "bash", { command: "rm data.bin && echo two > note.txt" });
      await writeFile(join(workspace, "filler"), Buffer.alloc(0));
      const filler = await open(join(workspace, "filler"), "a");
      try {
        for (;;) await filler.write(randomBytes(64 * 1024));
      } catch (error) {
        expect((error as NodeJS.ErrnoException).code).toBe("ENOSPC");
      } finally {
        await filler.close();
      }
      const before = await hashWorkspace(workspace);
      const entries = session.getEntries().length;
      await expect(
        checkpoints.restoreTo(session, withData, { dryRun: false, markLeaf: true }),
      ).rejects.toMatchObject({
        name: "CheckpointError",
        code: "restore_failed",
        message: expect.stringMatching(/the disk is full[\s\S]*put back as it was/),
      });
      expect(await hashWorkspace(workspace)).toBe(before);
      expect(await readFile(join(workspace, "note.txt"), "utf8")).toBe("two\n");
      expect(
        (await readdir(workspace)).filter((name) => name.startsWith(".arbor-restore-")),
      ).toEqual([]);
      // Nothing recorded a rewind that did not happen; the prompt's state is still reachable.
      expect(session.getEntries().length).toBeLessThanOrEqual(entries + 1);
      expect(checkpoints.stateAt(session, prompt)).toBeDefined();
      // With room again the same rewind works.
      await rm(join(workspace, "filler"));
      await checkpoints.restoreTo(session, withData, { dryRun: false, markLeaf: true });
      expect(await readFile(join(workspace, "note.txt"), "utf8")).toBe("one\n");
      expect((await stat(join(workspace, "data.bin"))).size).toBe(1_500_000);
    },
    60_000,
  );

  it("records and rewinds a workspace of 100,000 files, each entry naming only what changed", async () => {
    for (let folder = 0; folder < 100; folder++) {
      const dir = join(workspace, `d${folder}`);
      await mkdir(dir);
      const writes: Promise<void>[] = [];
      for (let file = 0; file < 1000; file++)
        writes.push(writeFile(join(dir, `f${file}.txt`), `${folder}/${file}\n`));
      await Promise.all(writes);
    }
    const { checkpoints, tools } = await bind();
    const prompt = await session.appendMessage({
      role: "user",
      content: "go",
      timestamp: Date.now(),
    });
    await callTool(tools, "write", { path: "d7/f7.txt", content: "changed\n" });
    const records = checkpoints.list(session);
    expect(records.map(({ reason, changed }) => ({ reason, changed }))).toEqual([
      { reason: "before_tool", changed: [] },
      { reason: "after_tool", changed: ["d7/f7.txt"] },
    ]);
    // A command that changes 100 files and removes a folder of 1,000.
    await callTool(tools, "bash", {
      command: "for n in $(seq 0 99); do echo x > d1/f$n.txt; done; rm -r d2",
    });
    const last = checkpoints.list(session).at(-1);
    expect(last?.changed).toHaveLength(1000); // the default listing cap
    expect(last?.changedCount).toBe(1100);
    const rewind = await checkpoints.restoreTo(session, prompt, { dryRun: false, markLeaf: true });
    expect(rewind.written).toHaveLength(1101);
    expect(await readFile(join(workspace, "d1", "f5.txt"), "utf8")).toBe("1/5\n");
    expect(await readFile(join(workspace, "d2", "f999.txt"), "utf8")).toBe("2/999\n");
    expect(await readFile(join(workspace, "d7", "f7.txt"), "utf8")).toBe("7/7\n");
  }, 600_000);

  it("never copies a 1 GiB ignored folder, nor reads it, nor touches it on a rewind", async () => {
    await writeFile(join(workspace, ".gitignore"), "build/\n");
    await mkdir(join(workspace, "build"));
    // Sixteen 64 MiB files (sparse, so the test costs no disk), far above nothing but the ignore rule.
    for (let n = 0; n < 16; n++) {
      const file = await open(join(workspace, "build", `part-${n}.bin`), "w");
      await file.truncate(64 * 1024 * 1024);
      await file.write("end", 64 * 1024 * 1024 - 3);
      await file.close();
    }
    const ignoredBytes = (await readdir(join(workspace, "build"))).length * 64 * 1024 * 1024;
    expect(ignoredBytes).toBe(1024 * 1024 * 1024);
    const stamp = (await stat(join(workspace, "build", "part-3.bin"))).mtimeMs;
    const { checkpoints, tools, storeDir } = await bind(2 * 1024 * 1024 * 1024);
    const prompt = await session.appendMessage({
      role: "user",
      content: "go",
      timestamp: Date.now(),
    });
    await callTool(tools, "write", { path: "src.txt", content: "code\n" });
    await callTool(tools, "bash", {
      command: "echo more >> src.txt && echo built >> build/log.txt",
    });
    const records = checkpoints.list(session);
    expect(records.flatMap((record) => record.changed)).toEqual(["src.txt", "src.txt"]);
    expect(records.flatMap((record) => record.skipped ?? [])).toEqual([]);
    // Nothing of the folder is in the store: it stays tiny.
    expect(await folderBytes(storeDir)).toBeLessThan(2 * 1024 * 1024);
    await checkpoints.restoreTo(session, prompt, { dryRun: false, markLeaf: true });
    await expect(stat(join(workspace, "src.txt"))).rejects.toThrow();
    expect((await stat(join(workspace, "build", "part-3.bin"))).mtimeMs).toBe(stamp);
    expect(await readFile(join(workspace, "build", "log.txt"), "utf8")).toBe("built\n");
  }, 120_000);

  it("leaves files outside the workspace alone, whatever a command did there", async () => {
    const outside = join(base, "outside");
    await mkdir(outside);
    await writeFile(join(outside, "kept.txt"), "outside\n");
    const { checkpoints, tools } = await bind();
    const prompt = await session.appendMessage({
      role: "user",
      content: "go",
      timestamp: Date.now(),
    });
    await callTool(tools, "bash", {
      command: "echo in > inside.txt && echo made > ../outside/made.txt && ln -s ../outside link",
    });
    const outsideAfter = await hashWorkspace(outside);
    expect(checkpoints.list(session).at(-1)?.changed).toEqual(["inside.txt", "link"]);
    await checkpoints.restoreTo(session, prompt, { dryRun: false, markLeaf: true });
    expect(await readdir(workspace)).toEqual([]);
    expect(await hashWorkspace(outside)).toBe(outsideAfter);
    expect(await readFile(join(outside, "made.txt"), "utf8")).toBe("made\n");
  });
});
