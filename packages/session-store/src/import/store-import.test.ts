import { appendFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "../store/file-session-store.js";
import { MemorySessionStore } from "../store/memory-session-store.js";
import type { SessionStore } from "../store/session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import { defined, importFixture } from "./import-test-util.js";
import { importIntoStore } from "./store-import.js";

const claudeFile = importFixture("generated", "claude-code-every-line.jsonl");
const codexFile = importFixture("generated", "codex-every-line.jsonl");

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-import-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Stores by backend; a file store is made in a folder of its own for each `name`. */
const stores: [string, (name?: string) => SessionStore][] = [
  ["memory", () => new MemorySessionStore()],
  [
    "file",
    (name = "store") => new FileSessionStore({ root: join(dir, name), durability: "never" }),
  ],
];

async function entriesOf(store: SessionStore, id: string): Promise<string[]> {
  const session = await store.open(id, { readOnly: true });
  const lines = session.getEntries().map((e) => JSON.stringify(e));
  await session.close();
  return lines;
}

/** Writes the first `count` lines of a file (plus `tail`, unterminated) to `path`. */
async function prefix(source: string, path: string, count: number, tail = ""): Promise<string[]> {
  const lines = (await readFile(source, "utf8")).split("\n").filter((l) => l !== "");
  await writeFile(path, `${lines.slice(0, count).join("\n")}\n${tail}`);
  return lines;
}

describe.each(stores)("importIntoStore (%s store)", (_name, makeStore) => {
  it("creates the session once; the same source again is unchanged and writes nothing", async () => {
    const store = makeStore();
    const [log] = await readClaudeCodeFile(claudeFile);
    expect(await importIntoStore(store, defined(log))).toMatchObject({
      status: "created",
      added: log?.entries.length,
    });
    const before = await entriesOf(store, defined(log).header.id);
    const [again] = await readClaudeCodeFile(claudeFile);
    expect(await importIntoStore(store, defined(again))).toEqual({
      id: log?.header.id,
      status: "unchanged",
      added: 0,
    });
    expect(await entriesOf(store, defined(log).header.id)).toEqual(before);
  });

  it("after the source grew, adds only what it gained and keeps every stored entry", async () => {
    for (const [source, read] of [
      [claudeFile, async (p: string) => defined((await readClaudeCodeFile(p))[0])],
      [codexFile, readCodexFile],
    ] as const) {
      const store = makeStore();
      const live = join(dir, `live-${source === claudeFile ? "cc" : "codex"}.jsonl`);
      const all = await prefix(source, live, 5);
      const first = await read(live);
      await importIntoStore(store, first);
      const stored = await entriesOf(store, first.header.id);
      await appendFile(live, `${all.slice(5).join("\n")}\n`);
      const grown = await read(live);
      const result = await importIntoStore(store, grown);
      expect(result.status).toBe("updated");
      expect(result.added).toBeGreaterThan(0);
      const after = await entriesOf(store, first.header.id);
      const afterIds = new Set(after.map((l) => JSON.parse(l).id));
      for (const line of stored) expect(afterIds.has(JSON.parse(line).id)).toBe(true);
      expect(after.length).toBe(stored.length + result.added);
      // The same as importing the whole file at once.
      const fresh = makeStore("fresh");
      await importIntoStore(fresh, await read(source));
      expect(after).toEqual(await entriesOf(fresh, first.header.id));
    }
  });

  it("replaces a torn last line once it is complete", async () => {
    const store = makeStore();
    const live = join(dir, "torn.jsonl");
    const all = await prefix(claudeFile, live, 4);
    await appendFile(live, all[4]?.slice(0, 30) ?? "");
    const first = defined((await readClaudeCodeFile(live))[0]);
    expect(first.report.issues.at(-1)?.reason).toMatch(/^torn last line/);
    await importIntoStore(store, first);
    await writeFile(live, `${all.join("\n")}\n`);
    const result = await importIntoStore(store, defined((await readClaudeCodeFile(live))[0]));
    expect(result.status).toBe("updated");
    const kinds = (await entriesOf(store, first.header.id)).map((l) => JSON.parse(l).customType);
    expect(kinds.filter((k) => k === "import.raw_line")).toHaveLength(1); // the fixture's own one
  });

  it("never overwrites a session that was continued in Arbor", async () => {
    const store = makeStore();
    const log = await readCodexFile(codexFile);
    await importIntoStore(store, log);
    const session = await store.open(log.header.id);
    await session.appendMessage({ role: "user", content: "continued here", timestamp: 1 });
    await session.close();
    const before = await entriesOf(store, log.header.id);
    const result = await importIntoStore(store, log);
    expect(result.status).toBe("diverged");
    expect(result.reason).toMatch(/continued in Arbor/);
    expect(await entriesOf(store, log.header.id)).toEqual(before);
  });

  it("with dryRun, reports what it would do and writes nothing", async () => {
    const store = makeStore();
    const log = await readCodexFile(codexFile);
    expect(await importIntoStore(store, log, { dryRun: true })).toMatchObject({
      status: "created",
    });
    expect((await store.list()).sessions).toHaveLength(0);
  });
});
