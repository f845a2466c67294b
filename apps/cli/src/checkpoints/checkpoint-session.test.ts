import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { AgentHost, defineAgent } from "@arbor/orchestration";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/orchestration/test";
import { CHECKPOINT_CUSTOM_TYPE, FileSessionStore } from "@arbor/session-store";
import {
  type CheckpointStore,
  openCheckpointStore,
  sessionCheckpoints,
  workspaceTools,
} from "@arbor/workspace";
import { hashWorkspace } from "@arbor/workspace/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

// A scripted ten-turn session through the agent host, with the real coding tools and the
// real checkpoint store: writes, edits, bash-made changes (sed -i, mv, rm, git checkout),
// a hand edit between turns, a branch; then rewinds to every turn, code and both, and back.

const run = promisify(execFile);
const PATH = "/usr/local/bin:/usr/bin:/bin";

let base: string;
let workspace: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-checkpoint-session-"));
  workspace = join(base, "project");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>): ScriptedResponseInput => ({
  blocks: [{ type: "toolCall", name, arguments: args }],
});

/** One turn: a tool call, then a short answer. */
const turn = (name: string, args: Record<string, unknown>): ScriptedResponseInput[] => [
  call(name, args),
  "done",
];

const git = (...args: string[]) =>
  run("git", args, {
    cwd: workspace,
    env: {
      PATH,
      HOME: base,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });

type Kind = "git repository" | "plain folder" | "folder with ignored build output";

async function prepare(kind: Kind): Promise<void> {
  await writeFile(join(workspace, "a.txt"), "a0\n");
  if (kind === "git repository") {
    await git("init", "-q");
    await git("add", "a.txt");
    await git("commit", "-q", "-m", "start");
  }
  if (kind === "folder with ignored build output") {
    await writeFile(join(workspace, ".gitignore"), "build/\n");
    await mkdir(join(workspace, "build"));
    await writeFile(join(workspace, "build", "out.bin"), Buffer.alloc(4096, 7));
  }
}

async function openHost(store: CheckpointStore, responses: ScriptedResponseInput[]) {
  const model = new ScriptedModel({ responses });
  const host = await AgentHost.open({
    store: new FileSessionStore({ root: join(base, "sessions") }),
    create: { cwd: workspace },
    agent: defineAgent({ name: "coder", systemPrompt: "You code.", models: ["scripted/scripted"] }),
    models: () => model,
    tools: workspaceTools(workspace, { env: { PATH } }),
    checkpoints: sessionCheckpoints({ store }),
    agentOptions: { retryDelayMs: 1, sleep: async () => {} },
  });
  return host;
}

describe.each<Kind>(["git repository", "plain folder", "folder with ignored build output"])(
  "checkpoints of a ten-turn session in a %s",
  (kind) => {
    it("brings the files back at every entry, code and both, and redoes to the end", async () => {
      await prepare(kind);
      const opened = await openCheckpointStore({ workspace, home: join(base, "home") });
      if (!opened.available) throw new Error(opened.reason);
      const restoreA = "git checkout -q -- a.txt 2>/dev/null || printf 'a0\\n' > a.txt";
      const responses = [
        ...turn("write", { path: "notes.md", content: "n1\n" }),
        ...turn("edit", { path: "notes.md", oldText: "n1", newText: "n2" }),
        ...turn("bash", { command: "sed -i 's/a0/a1/' a.txt" }),
        ...turn("bash", { command: "mkdir -p docs && mv notes.md docs/notes.md" }),
        ...turn("bash", { command: "rm a.txt && echo b > b.txt" }),
        ...turn("bash", { command: restoreA }),
        ...turn("write", { path: "c.txt", content: "c\n" }),
        // The branch, from turn 4's answer.
        ...turn("write", { path: "branch.txt", content: "x\n" }),
        ...turn("edit", { path: "branch.txt", oldText: "x", newText: "y" }),
        ...turn("bash", { command: "rm -r docs" }),
      ];
      const host = await openHost(opened, responses);
      const skip = [".git", "build"];
      const build = kind === "folder with ignored build output" ? await buildHash() : undefined;
      const seen: Array<{ leaf: string; hash: string }> = [];
      const prompt = async (text: string) => {
        await host.prompt(text).result;
        seen.push({
          leaf: host.session.getLeafId() as string,
          hash: await hashWorkspace(workspace, { skip }),
        });
      };
      for (const text of ["write notes", "edit notes", "sed a", "move notes", "rm a"]) {
        await prompt(text);
      }
      // A hand edit between turns, outside the tools: the next turn's first checkpoint has it.
      await writeFile(join(workspace, "hand.txt"), "by hand\n");
      await prompt("restore a");
      await prompt("write c");
      expect(await readFile(join(workspace, "hand.txt"), "utf8")).toBe("by hand\n");

      const turn4 = seen[3] as { leaf: string; hash: string };
      const branched = await host.rewind(turn4.leaf, { to: "both" });
      expect(branched.navigation?.newLeafId).toBe(turn4.leaf);
      expect(await hashWorkspace(workspace, { skip })).toBe(turn4.hash);
      await prompt("write branch");
      await prompt("edit branch");
      await prompt("rm docs");
      expect(seen).toHaveLength(10);
      expect(await readFile(join(workspace, "branch.txt"), "utf8")).toBe("y\n");

      // Every checkpoint entry names the files its tool changed.
      const records = host.checkpoints();
      const changedBy = (toolPath: string) =>
        records.filter(
          (record) => record.reason === "after_tool" && record.changed.includes(toolPath),
        );
      expect(changedBy("notes.md").length).toBeGreaterThanOrEqual(2);
      expect(changedBy("a.txt").length).toBeGreaterThanOrEqual(3); // sed, rm, checkout
      expect(
        records.some(
          (record) => record.reason === "before_tool" && record.changed.includes("hand.txt"),
        ),
      ).toBe(true);
      expect(
        records.every((record) => !record.changed.some((path) => path.startsWith("build/"))),
      ).toBe(true);

      // Rewind to every turn, code only and both, in an order that goes back and forth.
      const order = [9, 0, 5, 2, 7, 1, 6, 3, 8, 4];
      for (const index of order) {
        const point = seen[index] as { leaf: string; hash: string };
        const code = await host.rewind(point.leaf, { to: "code" });
        expect(code.code?.dryRun).toBe(false);
        expect(await hashWorkspace(workspace, { skip }), `code rewind to turn ${index + 1}`).toBe(
          point.hash,
        );
        const both = await host.rewind(point.leaf, { to: "both" });
        expect(both.navigation?.newLeafId).toBe(point.leaf);
        expect(host.session.getLeafId()).toBe(point.leaf);
        expect(await hashWorkspace(workspace, { skip }), `rewind to turn ${index + 1}`).toBe(
          point.hash,
        );
      }

      // A hand edit, then a rewind: undoing it (the before_rewind entry) brings the hand edit back.
      await writeFile(join(workspace, "late.txt"), "late edit\n");
      const handHash = await hashWorkspace(workspace, { skip });
      const back = await host.rewind((seen[0] as { leaf: string }).leaf, { to: "code" });
      await expect(stat(join(workspace, "late.txt"))).rejects.toThrow();
      expect(back.code?.beforeEntryId).toBeDefined();
      await host.rewind(back.code?.beforeEntryId as string, { to: "code" });
      expect(await readFile(join(workspace, "late.txt"), "utf8")).toBe("late edit\n");
      expect(await hashWorkspace(workspace, { skip })).toBe(handHash);

      // Redo to the end of each branch.
      const last = seen[9] as { leaf: string; hash: string };
      await host.rewind(last.leaf, { to: "both" });
      expect(await hashWorkspace(workspace, { skip })).toBe(last.hash);
      const mainEnd = seen[6] as { leaf: string; hash: string };
      await host.rewind(mainEnd.leaf, { to: "both" });
      expect(await hashWorkspace(workspace, { skip })).toBe(mainEnd.hash);

      if (build !== undefined) expect(await buildHash()).toBe(build);
      // Nothing lost: every entry is still in the tree, the session file holds the checkpoints.
      const text = await readFile(host.session.location, "utf8");
      expect(text.split(CHECKPOINT_CUSTOM_TYPE).length - 1).toBe(host.checkpoints().length);
      for (const point of seen) expect(host.session.getEntry(point.leaf)).toBeDefined();
      await host.close();
    }, 120_000);
  },
);

describe("rewind through the host", () => {
  it("a dry run says what would change and changes nothing; conversation-only leaves the files", async () => {
    const opened = await openCheckpointStore({ workspace, home: join(base, "home") });
    if (!opened.available) throw new Error(opened.reason);
    await writeFile(join(workspace, "keep.txt"), "k\n");
    const host = await openHost(opened, [
      ...turn("write", { path: "one.txt", content: "1\n" }),
      ...turn("write", { path: "two.txt", content: "2\n" }),
    ]);
    await host.prompt("one").result;
    const first = host.session.getLeafId() as string;
    await host.prompt("two").result;
    const before = await hashWorkspace(workspace);
    const entries = host.session.getEntries().length;

    const plan = await host.rewind(first, { to: "both", dryRun: true });
    expect(plan.code).toMatchObject({ dryRun: true, written: [], deleted: ["two.txt"] });
    expect(plan.navigation).toBeUndefined();
    expect(await hashWorkspace(workspace)).toBe(before);
    expect(host.session.getEntries()).toHaveLength(entries);

    const talk = await host.rewind(first, { to: "conversation" });
    expect(talk.code).toBeUndefined();
    expect(host.session.getLeafId()).toBe(first);
    expect(await hashWorkspace(workspace)).toBe(before);

    // The leaf is the first turn's answer now: this turn's changes (since its user message,
    // before any tool ran) are both files; since the answer, the second turn's file.
    expect(await host.diff()).toEqual([
      { path: "one.txt", status: "added" },
      { path: "two.txt", status: "added" },
    ]);
    expect(await host.diff(first)).toEqual([{ path: "two.txt", status: "added" }]);
    await host.close();
  });

  it("refuses the code without checkpoints, and an unknown entry", async () => {
    const model = new ScriptedModel({ responses: ["hi"] });
    const host = await AgentHost.open({
      store: new FileSessionStore({ root: join(base, "sessions") }),
      create: { cwd: workspace },
      agent: defineAgent({ name: "coder", models: ["scripted/scripted"] }),
      models: () => model,
    });
    await host.prompt("hi").result;
    const leaf = host.session.getLeafId() as string;
    await expect(host.rewind(leaf, { to: "code" })).rejects.toThrow(
      /without workspace checkpoints/,
    );
    await expect(host.rewind("nope", { to: "conversation" })).rejects.toThrow(/not an entry/);
    // Both, with checkpoints that know nothing of the entry: the conversation alone moves.
    const opened = await openCheckpointStore({ workspace, home: join(base, "home") });
    if (!opened.available) throw new Error(opened.reason);
    const withCheckpoints = await AgentHost.open({
      store: new FileSessionStore({ root: join(base, "sessions-2") }),
      create: { cwd: workspace },
      agent: defineAgent({ name: "coder", models: ["scripted/scripted"] }),
      models: () => new ScriptedModel({ responses: ["hi"] }),
      checkpoints: sessionCheckpoints({ store: opened }),
    });
    await withCheckpoints.prompt("hi").result;
    const both = await withCheckpoints.rewind(null, { to: "both" });
    expect(both.code).toBeUndefined();
    expect(withCheckpoints.session.getLeafId()).toBeNull();
    await expect(withCheckpoints.rewind(null, { to: "code" })).rejects.toMatchObject({
      code: "no_checkpoint",
    });
    await withCheckpoints.close();
    expect(host.checkpoints()).toEqual([]);
    await host.close();
  });

  it("refuses while another process holds the session", async () => {
    const opened = await openCheckpointStore({ workspace, home: join(base, "home") });
    if (!opened.available) throw new Error(opened.reason);
    const host = await openHost(opened, [...turn("write", { path: "x.txt", content: "x" })]);
    await host.prompt("x").result;
    const sessionId = host.session.id;
    const other = AgentHost.open({
      store: new FileSessionStore({ root: join(base, "sessions") }),
      sessionId,
      agent: defineAgent({ name: "coder", models: ["scripted/scripted"] }),
      models: () => new ScriptedModel({ responses: [] }),
      checkpoints: sessionCheckpoints({ store: opened }),
    });
    await expect(other).rejects.toMatchObject({ name: "SessionLockedError" });
    await host.close();
  });
});

async function buildHash(): Promise<string> {
  return (await readFile(join(workspace, "build", "out.bin"))).toString("hex");
}
