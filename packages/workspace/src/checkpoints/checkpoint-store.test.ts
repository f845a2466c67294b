import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkpointEntryDataSchema } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashWorkspace } from "../test/index.js";
import { workspaceTools } from "../workspace-tools.js";
import { CheckpointError } from "./checkpoint-error.js";
import { restoreResultSchema, snapshotResultSchema } from "./checkpoint-schema.js";
import { type CheckpointStore, openCheckpointStore } from "./checkpoint-store.js";

let base: string;
let workspace: string;
let home: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-checkpoints-"));
  workspace = join(base, "project");
  home = join(base, "home");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=U", "-c", "user.email=u@example.com", ...args], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: base, GIT_CONFIG_NOSYSTEM: "1" },
  });

async function open(maxFileBytes = 1024 * 1024): Promise<CheckpointStore> {
  const store = await openCheckpointStore({ workspace, home, maxFileBytes });
  if (!store.available) throw new Error(store.reason);
  return store;
}

/** Runs one of the workspace tools as the model would call it. */
async function tool(name: string, args: Record<string, unknown>) {
  const found = workspaceTools(workspace, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
  }).find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found.execute(found.parameters.parse(args), {
    signal: new AbortController().signal,
    toolCallId: `call-${name}`,
  });
}

type Kind =
  | "a git repository"
  | "a folder that is not a git repository"
  | "a folder with ignored build output";

async function prepare(kind: Kind): Promise<void> {
  await writeFile(join(workspace, "README.md"), "# project\n");
  if (kind === "a git repository") {
    git(workspace, "init", "-q");
    await writeFile(join(workspace, "tracked.txt"), "committed\n");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-qm", "first");
    await writeFile(join(workspace, "tracked.txt"), "stashed change\n");
    git(workspace, "stash", "-q");
    await writeFile(join(workspace, "staged.txt"), "staged\n");
    git(workspace, "add", "staged.txt");
    await writeFile(join(workspace, ".git", "hooks", "pre-commit"), "#!/bin/sh\ntouch HOOK-RAN\n", {
      mode: 0o755,
    });
  }
  if (kind === "a folder with ignored build output") {
    await writeFile(join(workspace, ".gitignore"), "dist/\n*.log\n");
    await mkdir(join(workspace, "dist"));
    await writeFile(join(workspace, "dist", "bundle.js"), "built 0\n");
  }
}

/** The build output changes between steps, as a watcher would change it. */
async function touchBuildOutput(kind: Kind, step: number): Promise<void> {
  if (kind !== "a folder with ignored build output") return;
  await writeFile(join(workspace, "dist", "bundle.js"), `built ${step}\n`);
  await writeFile(join(workspace, "server.log"), `log ${step}\n`);
}

const KINDS: Kind[] = [
  "a git repository",
  "a folder that is not a git repository",
  "a folder with ignored build output",
];

describe.each(KINDS)("checkpoints of %s", (kind) => {
  it("restores every snapshot of a sequence of changes, then goes back to the end", async () => {
    await prepare(kind);
    const userGit =
      kind === "a git repository"
        ? () => hashWorkspace(join(workspace, ".git"), { skip: [] })
        : async () => "";
    const userGitBefore = await userGit();
    const store = await open();
    const skip = [".git", "dist", "server.log"];
    const recorded: Array<{ id: string; hash: string; changed: string[] }> = [];
    const record = async () => {
      const result = snapshotResultSchema.parse(await store.snapshot());
      recorded.push({
        id: result.id,
        hash: await hashWorkspace(workspace, { skip }),
        changed: result.changed,
      });
    };
    const steps: Array<() => Promise<unknown>> = [
      () =>
        tool("write", {
          path: "src/app.ts",
          content: "export const a = 1;\nexport const b = 2;\n",
        }),
      () => tool("edit", { path: "src/app.ts", oldText: "b = 2", newText: "b = 3" }),
      () =>
        tool("bash", {
          command: "sed -i 's/a = 1/a = 10/' src/app.ts && printf 'x\\n' > notes.txt",
        }),
      () => tool("bash", { command: "mkdir -p lib && mv src/app.ts lib/app.ts" }),
      () => tool("bash", { command: "rm README.md" }),
      // A file made outside any tool (an editor, a formatter the agent started).
      () => writeFile(join(workspace, "lib", "by-hand.ts"), "// typed by the user\n"),
      // A file becomes a folder, another becomes executable.
      () =>
        tool("bash", {
          command:
            "rm notes.txt && mkdir notes.txt && printf 'in\\n' > notes.txt/in.txt && chmod +x lib/app.ts",
        }),
    ];
    await record();
    for (const [index, step] of steps.entries()) {
      await step();
      await touchBuildOutput(kind, index);
      await record();
    }
    expect(recorded[1]?.changed).toEqual(["src/app.ts"]);
    expect(recorded[4]?.changed).toEqual(["lib/app.ts", "src/app.ts"]);
    expect(recorded[5]?.changed).toEqual(["README.md"]);
    expect(recorded[6]?.changed).toEqual(["lib/by-hand.ts"]);
    expect(recorded[7]?.changed).toEqual(["lib/app.ts", "notes.txt", "notes.txt/in.txt"]);
    expect(new Set(recorded.map((r) => r.hash)).size).toBe(recorded.length);

    const buildOutput = async () =>
      kind === "a folder with ignored build output"
        ? [
            await readFile(join(workspace, "dist", "bundle.js"), "utf8"),
            await readFile(join(workspace, "server.log"), "utf8"),
          ]
        : [];
    const outputBefore = await buildOutput();
    for (const { id, hash } of recorded) {
      const result = restoreResultSchema.parse(await store.restore(id));
      expect(result.kept).toEqual([]);
      expect(await hashWorkspace(workspace, { skip })).toBe(hash);
      expect(await buildOutput()).toEqual(outputBefore);
    }
    const last = recorded.at(-1);
    if (!last) throw new Error("no snapshots");
    await store.restore(last.id);
    expect(await hashWorkspace(workspace, { skip })).toBe(last.hash);
    expect(await readFile(join(workspace, "lib", "by-hand.ts"), "utf8")).toBe(
      "// typed by the user\n",
    );
    expect(await userGit()).toBe(userGitBefore);
    if (kind === "a git repository") {
      expect(git(workspace, "stash", "list")).toContain("stash@{0}");
      expect(git(workspace, "diff", "--cached", "--name-only")).toBe("staged.txt\n");
      expect(git(workspace, "log", "--format=%s")).toBe("first\n");
    }
  });
});

describe("a restore", () => {
  it("can be undone, hand edits made since the last snapshot included", async () => {
    const store = await open();
    await writeFile(join(workspace, "a.txt"), "one\n");
    const first = await store.snapshot();
    await writeFile(join(workspace, "a.txt"), "two\n");
    await store.snapshot();
    await writeFile(join(workspace, "a.txt"), "two, edited by hand\n");
    await writeFile(join(workspace, "new.txt"), "made by hand\n");
    const edited = await hashWorkspace(workspace);
    const rewind = await store.restore(first.id);
    expect(rewind).toMatchObject({ written: ["a.txt"], deleted: ["new.txt"], kept: [] });
    expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("one\n");
    await store.restore(rewind.undoId ?? "");
    expect(await hashWorkspace(workspace)).toBe(edited);
  });

  it("changes nothing in a dry run and reports what it would change", async () => {
    const store = await open();
    await writeFile(join(workspace, "a.txt"), "one\n");
    const first = await store.snapshot();
    await writeFile(join(workspace, "a.txt"), "two\n");
    await writeFile(join(workspace, "b.txt"), "b\n");
    const second = await store.snapshot();
    const now = await hashWorkspace(workspace);
    const plan = await store.restore(first.id, { dryRun: true });
    expect(plan).toEqual({
      targetId: first.id,
      dryRun: true,
      written: ["a.txt"],
      deleted: ["b.txt"],
      kept: [],
    });
    expect(await hashWorkspace(workspace)).toBe(now);
    // A dry run records nothing: the next snapshot is still compared with the second.
    await writeFile(join(workspace, "c.txt"), "c\n");
    expect(await store.snapshot()).toMatchObject({ previousId: second.id, changed: ["c.txt"] });
  });

  it("writes only the files that differ", async () => {
    const store = await open();
    for (let i = 0; i < 20; i++) await writeFile(join(workspace, `f${i}.txt`), `${i}\n`);
    const first = await store.snapshot();
    await writeFile(join(workspace, "f3.txt"), "changed\n");
    await store.snapshot();
    expect(await store.restore(first.id)).toMatchObject({ written: ["f3.txt"], deleted: [] });
  });
});

describe("snapshots and ids", () => {
  it("gives the previous id for an unchanged workspace and diffs two snapshots", async () => {
    const store = await open();
    await writeFile(join(workspace, "a.txt"), "a\n");
    const first = await store.snapshot();
    expect(first.changed).toEqual(["a.txt"]);
    expect(await store.snapshot()).toEqual({
      id: first.id,
      previousId: first.id,
      changed: [],
      skipped: [],
    });
    await rm(join(workspace, "a.txt"));
    await writeFile(join(workspace, "b.txt"), "b\n");
    const second = await store.snapshot();
    expect(await store.diff(first.id, second.id)).toEqual([
      { path: "a.txt", status: "deleted" },
      { path: "b.txt", status: "added" },
    ]);
    const data = checkpointEntryDataSchema.parse({
      snapshotId: second.id,
      changed: second.changed,
      toolCallId: "call-1",
      future: 1,
    });
    expect(data).toMatchObject({ future: 1 });
  });

  it("refuses an id that is not a snapshot of the store with a typed error", async () => {
    const store = await open();
    for (const id of ["HEAD", "--help", "0".repeat(40)]) {
      const error = await store.restore(id).catch((caught: unknown) => caught);
      expect(CheckpointError.isInstance(error) && error.code).toBe("unknown_snapshot");
    }
  });

  it("reopens the same store for the same workspace, and stores nothing in it", async () => {
    const store = await open();
    await writeFile(join(workspace, "a.txt"), "a\n");
    const first = await store.snapshot();
    const again = await open();
    expect(again.storeDir).toBe(store.storeDir);
    expect(await again.snapshot()).toMatchObject({ id: first.id, changed: [] });
    expect(execFileSync("ls", ["-A", workspace], { encoding: "utf8" })).toBe("a.txt\n");
    // The commits Arbor writes itself are objects git reads and checks like its own.
    git(base, "--git-dir", join(store.storeDir, "git"), "fsck", "--strict", "--no-dangling");
    expect(git(base, "--git-dir", join(store.storeDir, "git"), "cat-file", "-t", first.id)).toBe(
      "commit\n",
    );
  });

  it("never snapshots its own store when that lies inside the workspace", async () => {
    const store = await openCheckpointStore({
      workspace,
      home: join(workspace, ".arbor", "checkpoints"),
    });
    if (!store.available) throw new Error(store.reason);
    await writeFile(join(workspace, "a.txt"), "a\n");
    expect((await store.snapshot()).changed).toEqual(["a.txt"]);
    await writeFile(join(workspace, "b.txt"), "b\n");
    expect((await store.snapshot()).changed).toEqual(["b.txt"]);
  });

  it("is off with one clear reason where git is missing", async () => {
    const store = await openCheckpointStore({
      workspace,
      home,
      git: { binary: join(base, "no-git") },
    });
    expect(store.available).toBe(false);
    if (store.available) return;
    expect(store.reason).toBe(
      "Checkpoints need the git program, which could not be run (ENOENT); install git or put it on the PATH.",
    );
    expect(store.error.code).toBe("git_unavailable");
  });

  it("refuses a workspace that is not a folder", async () => {
    const error = await openCheckpointStore({ workspace: join(base, "missing"), home }).catch(
      (caught: unknown) => caught,
    );
    expect(CheckpointError.isInstance(error) && error.code).toBe("workspace_missing");
  });
});
