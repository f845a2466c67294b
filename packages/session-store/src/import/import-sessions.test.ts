import { cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "../store/file-session-store.js";
import { MemorySessionStore } from "../store/memory-session-store.js";
import { SessionImportError } from "./import-errors.js";
import { defaultImportLocation, type ImportProgress, importSessions } from "./import-sessions.js";
import { importFixture } from "./import-test-util.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-import-dir-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A folder laid out like ~/.claude/projects and ~/.codex/sessions together, with junk in it. */
async function mixedFolder(): Promise<string> {
  const root = join(dir, "sources");
  const project = join(root, "-work-demo");
  await mkdir(project, { recursive: true });
  await cp(importFixture("real", "claude-code", "marot-spotter"), project, { recursive: true });
  const day = join(root, "codex", "2026", "02", "23");
  await mkdir(day, { recursive: true });
  await cp(importFixture("real", "codex", "madshn-localpush"), day, { recursive: true });
  await writeFile(join(project, "history.jsonl"), '{"display":"ls","pastedContents":{}}\n');
  await writeFile(join(project, "image.jsonl"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  await writeFile(join(project, "empty.jsonl"), "");
  await writeFile(join(project, "notes.txt"), "not a session");
  return root;
}

describe("importSessions over a folder", () => {
  it("imports every session file, skips the rest with the reason, and reports progress", async () => {
    const store = new FileSessionStore({ root: join(dir, "store"), durability: "never" });
    const progress: ImportProgress[] = [];
    const summary = await importSessions(await mixedFolder(), {
      store,
      onProgress: (p) => progress.push(p),
    });
    expect(summary.sessions.map((s) => s.status)).toEqual(summary.sessions.map(() => "created"));
    expect(summary.sessions.filter((s) => s.tool === "claude-code")).toHaveLength(6);
    expect(summary.sessions.filter((s) => s.tool === "codex")).toHaveLength(4);
    expect(summary.skipped.map((s) => [s.path.split("/").pop(), s.code])).toEqual([
      ["empty.jsonl", "import_empty"],
      ["history.jsonl", "import_not_recognized"],
      ["image.jsonl", "import_binary"],
    ]);
    expect(progress.map((p) => p.done)).toEqual(progress.map((_, i) => i + 1));
    expect(progress.at(-1)?.total).toBe(13);
    const listed = await store.list({ limit: 100 });
    expect(listed.sessions).toHaveLength(10);
    const children = listed.sessions.filter(
      (s) => s.parentSession === "claude-code-ae4a77f8-aedd-4bc1-888f-c94edc91af04",
    );
    expect(children).toHaveLength(2);
  });

  it("imports nothing again the second time: every session is unchanged", async () => {
    const store = new FileSessionStore({ root: join(dir, "store"), durability: "never" });
    const folder = await mixedFolder();
    await importSessions(folder, { store });
    const again = await importSessions(folder, { store });
    expect(new Set(again.sessions.map((s) => s.status))).toEqual(new Set(["unchanged"]));
  });

  it("with dryRun reads and reports everything and writes nothing", async () => {
    const store = new FileSessionStore({ root: join(dir, "store"), durability: "never" });
    const summary = await importSessions(await mixedFolder(), { store, dryRun: true });
    expect(summary.sessions).toHaveLength(10);
    expect((await store.list()).sessions).toHaveLength(0);
  });

  it("finds opencode's storage folder by itself, or is told to", async () => {
    for (const from of ["auto", "opencode"] as const) {
      const store = new FileSessionStore({ root: join(dir, `store-${from}`), durability: "never" });
      const summary = await importSessions(importFixture("generated", "opencode-storage"), {
        store,
        from,
      });
      expect(summary.sessions.map((s) => [s.tool, s.status])).toEqual([
        ["opencode", "created"],
        ["opencode", "created"],
      ]);
    }
  });

  it("with --from a tool, skips files that tool did not write", async () => {
    const store = new FileSessionStore({ root: join(dir, "store"), durability: "never" });
    const summary = await importSessions(await mixedFolder(), { store, from: "codex" });
    expect(summary.sessions.every((s) => s.tool === "codex")).toBe(true);
    expect(summary.sessions).toHaveLength(4);
    expect(summary.skipped.length).toBe(9);
  });

  it("refuses a missing path and a single file it cannot import with a typed error", async () => {
    const store = new FileSessionStore({ root: join(dir, "store"), durability: "never" });
    for (const path of [
      join(dir, "missing"),
      join(await mixedFolder(), "-work-demo", "history.jsonl"),
    ]) {
      const error = await importSessions(path, { store }).catch((e: unknown) => e);
      expect(SessionImportError.isInstance(error)).toBe(true);
    }
  });

  it("reports a file whose import fails unexpectedly as skipped, and imports the others", async () => {
    class FailingStore extends MemorySessionStore {
      override async importLog(text: string, options?: { tenant?: string }) {
        if (text.includes("019c8a70")) throw new RangeError("Invalid string length");
        return super.importLog(text, options);
      }
    }
    const store = new FailingStore();
    const summary = await importSessions(await mixedFolder(), { store });
    expect(summary.sessions).toHaveLength(9);
    expect(summary.skipped.find((s) => s.code === "import_failed")).toMatchObject({
      path: expect.stringContaining("019c8a70"),
      reason: "Invalid string length",
    });
  });

  it("names each tool's default folder under a home folder", () => {
    expect(defaultImportLocation("claude-code", "/home/u")).toBe("/home/u/.claude/projects");
    expect(defaultImportLocation("codex", "/home/u")).toBe("/home/u/.codex/sessions");
    expect(defaultImportLocation("opencode", "/home/u")).toBe("/home/u/.local/share/opencode");
  });
});
