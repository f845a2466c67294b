import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySessionStore, type Session } from "@arbor/session-store";
import type { AgentTool } from "@arbor/turn-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashWorkspace } from "../test/index.js";
import { workspaceTools } from "../workspace-tools.js";
import { type CheckpointStore, openCheckpointStore } from "./checkpoint-store.js";
import { type SessionCheckpoints, sessionCheckpoints } from "./session-checkpoints.js";

// The binding of checkpoints to a session's tree, driven through the real tools the way the
// turn runner calls them (execute, then the tool result stored).

let base: string;
let workspace: string;
let store: CheckpointStore;
let session: Session;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-session-checkpoints-"));
  workspace = join(base, "project");
  await mkdir(workspace);
  await writeFile(join(workspace, "a.txt"), "a\n");
  const opened = await openCheckpointStore({ workspace, home: join(base, "home") });
  if (!opened.available) throw new Error(opened.reason);
  store = opened;
  session = await new MemorySessionStore().create({ cwd: workspace });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

let calls = 0;
/** Runs one tool call as the turn runner does: execute, then store its result. */
async function callTool(tools: AgentTool[], name: string, args: Record<string, unknown>) {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const toolCallId = `call-${++calls}`;
  const output = await tool.execute(tool.parameters.parse(args) as never, {
    signal: new AbortController().signal,
    toolCallId,
  });
  await session.appendMessage({
    role: "toolResult",
    toolCallId,
    toolName: name,
    content: [{ type: "text", text: typeof output === "string" ? output : "(parts)" }],
    isError: false,
    timestamp: Date.now(),
  });
  return toolCallId;
}

function bound(checkpoints: SessionCheckpoints): AgentTool[] {
  return checkpoints.bindTools(
    workspaceTools(workspace, { env: { PATH: "/usr/bin:/bin" } }),
    () => session,
  );
}

describe("checkpoints bound to a session", () => {
  it("records a baseline, then one entry per writing call naming its files; reads record nothing", async () => {
    const checkpoints = sessionCheckpoints({ store });
    const tools = bound(checkpoints);
    await session.appendMessage({ role: "user", content: "go", timestamp: Date.now() });
    await callTool(tools, "read", { path: "a.txt" });
    expect(checkpoints.list(session)).toEqual([]);
    const write = await callTool(tools, "write", { path: "b.txt", content: "b\n" });
    const bash = await callTool(tools, "bash", { command: "echo c > c.txt && rm a.txt" });
    // A call that changes nothing adds no entry: the branch's last checkpoint holds its files.
    await callTool(tools, "bash", { command: "true" });
    const records = checkpoints.list(session);
    expect(
      records.map(({ reason, changed, toolCallId }) => ({ reason, changed, toolCallId })),
    ).toEqual([
      { reason: "before_tool", changed: [], toolCallId: undefined },
      { reason: "after_tool", changed: ["b.txt"], toolCallId: write },
      { reason: "after_tool", changed: ["a.txt", "c.txt"], toolCallId: bash },
    ]);
    // A hand edit between calls is caught by the next call's first checkpoint.
    await writeFile(join(workspace, "hand.txt"), "by hand\n");
    await callTool(tools, "edit", { path: "b.txt", oldText: "b", newText: "B" });
    expect(
      checkpoints
        .list(session)
        .slice(3)
        .map(({ reason, changed }) => ({ reason, changed })),
    ).toEqual([
      { reason: "before_tool", changed: ["hand.txt"] },
      { reason: "after_tool", changed: ["b.txt"] },
    ]);
  });

  it("lists at most maxListedPaths paths and counts the rest", async () => {
    const checkpoints = sessionCheckpoints({ store, maxListedPaths: 3 });
    const tools = bound(checkpoints);
    await callTool(tools, "bash", { command: "for n in $(seq 1 10); do echo $n > f$n.txt; done" });
    const last = checkpoints.list(session).at(-1);
    expect(last?.changed).toHaveLength(3);
    expect(last?.changedCount).toBe(10);
  });

  it("names the tools that write, and still runs a tool whose checkpoint fails", async () => {
    const errors: unknown[] = [];
    const checkpoints = sessionCheckpoints({
      store,
      writingTools: ["bash"],
      onError: (error) => errors.push(error),
    });
    const tools = bound(checkpoints);
    await callTool(tools, "write", { path: "x.txt", content: "x" });
    expect(checkpoints.list(session)).toEqual([]);
    // The store is gone: the tool runs, its result is stored, the failure is heard.
    await rm(join(base, "home"), { recursive: true, force: true });
    await callTool(tools, "bash", { command: "echo y > y.txt" });
    expect(await readFile(join(workspace, "y.txt"), "utf8")).toBe("y\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it("brings the files to an entry's state, recording the state left so the rewind can be undone", async () => {
    const checkpoints = sessionCheckpoints({ store });
    const tools = bound(checkpoints);
    const prompt = await session.appendMessage({
      role: "user",
      content: "go",
      timestamp: Date.now(),
    });
    await callTool(tools, "write", { path: "b.txt", content: "b\n" });
    const before = await hashWorkspace(workspace);
    await writeFile(join(workspace, "hand.txt"), "hand\n");
    const handHash = await hashWorkspace(workspace);
    // The user message saw the files before any tool ran: the first checkpoint below it.
    expect(checkpoints.stateAt(session, prompt)?.reason).toBe("before_tool");
    const dry = await checkpoints.restoreTo(session, prompt, { dryRun: true, markLeaf: true });
    expect(dry).toMatchObject({ dryRun: true, written: [], deleted: ["b.txt", "hand.txt"] });
    expect(await hashWorkspace(workspace)).toBe(handHash);
    const done = await checkpoints.restoreTo(session, prompt, { dryRun: false, markLeaf: true });
    expect(done.deleted).toEqual(["b.txt", "hand.txt"]);
    const leaf = session.getLeafEntry();
    expect(leaf?.id).toBe(done.rewindEntryId);
    expect(checkpoints.stateAt(session, session.getLeafId())?.reason).toBe("rewind");
    await checkpoints.restoreTo(session, done.beforeEntryId ?? "", {
      dryRun: false,
      markLeaf: true,
    });
    expect(await hashWorkspace(workspace)).toBe(handHash);
    expect(handHash).not.toBe(before);
    expect(await checkpoints.diffSince(session, prompt)).toEqual([
      { path: "b.txt", status: "added" },
      { path: "hand.txt", status: "added" },
    ]);
  });

  it("refuses an entry no checkpoint knows with a typed error", async () => {
    const checkpoints = sessionCheckpoints({ store });
    const id = await session.appendMessage({ role: "user", content: "hi", timestamp: Date.now() });
    await expect(
      checkpoints.restoreTo(session, id, { dryRun: false, markLeaf: false }),
    ).rejects.toMatchObject({
      name: "CheckpointError",
      code: "no_checkpoint",
    });
  });
});
