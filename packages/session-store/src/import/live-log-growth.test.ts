import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemorySessionStore } from "../store/memory-session-store.js";
import type { SessionStore } from "../store/session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { importSessions } from "./import-sessions.js";
import { importFixture } from "./import-test-util.js";
import {
  databaseFromStorageFixture,
  emptyDatabase,
  insertMessage,
  insertPart,
  OPENCODE_DDL,
  saveDatabase,
} from "./opencode-database.test-util.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-live-growth-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A memory store that counts the rewrites an import makes (a spare copy stored). */
class CountingStore extends MemorySessionStore {
  rewrites = 0;
  override async importLog(text: string, options?: { tenant?: string }) {
    if (JSON.parse(text.slice(0, text.indexOf("\n"))).id.endsWith(".replacing")) this.rewrites++;
    return super.importLog(text, options);
  }
}

async function jsonlFiles(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await jsonlFiles(path)));
    else if (entry.name.endsWith(".jsonl")) found.push(path);
  }
  return found.sort();
}

async function storedEntries(store: SessionStore): Promise<Record<string, string[]>> {
  const stored: Record<string, string[]> = {};
  for (const { id } of (await store.list({ limit: 1000 })).sessions) {
    const session = await store.open(id, { readOnly: true });
    stored[id] = session
      .getEntries()
      .filter((e) => e.type !== "leaf")
      .map((e) => JSON.stringify(e));
    await session.close();
  }
  return stored;
}

const LIVE = { now: () => Date.now(), settleMs: 3_600_000 };
const SETTLED = { settleMs: 0 };

describe("following a live log one line at a time", () => {
  it("appends what each line completes and never rewrites a session, for every fixture", async () => {
    const fixtures = await jsonlFiles(importFixture());
    expect(fixtures.length).toBeGreaterThan(8);
    const rewrites: Record<string, number> = {};
    for (const fixture of fixtures) {
      const from = fixture.includes("codex") ? "codex" : "claude-code";

      // Named as Claude Code names its files (`<session id>.jsonl`): a session's id comes from
      // the name until a line names the session.
      const text = await readFile(fixture, "utf8");
      const named = /"sessionId":"([^"]+)"/.exec(text)?.[1];
      const name =
        from === "claude-code" && named && !basename(fixture).startsWith("agent-")
          ? `${named}.jsonl`
          : basename(fixture);
      const copy = join(dir, `growth-${Object.keys(rewrites).length}`, name);
      await mkdir(dirname(copy), { recursive: true });
      await writeFile(copy, "");
      const lines = text.split(/(?<=\n)/).slice(0, 150);
      const store = new CountingStore();
      for (const line of lines) {
        await appendFile(copy, line);
        const summary = await importSessions(copy, { store, from, ...LIVE }).catch(() => undefined);
        // The first lines may hold no session yet.
        expect(summary?.sessions.filter((s) => s.status === "diverged") ?? []).toEqual([]);
      }
      rewrites[relative(importFixture(), fixture)] = store.rewrites;
      // Once the source is quiet, what was held back is stored: the same as importing it whole.
      await importSessions(copy, { store, from, ...SETTLED });
      const whole = new MemorySessionStore();
      await importSessions(copy, { store: whole, from, ...SETTLED });
      expect(await storedEntries(store)).toEqual(await storedEntries(whole));
      expect(store.rewrites).toBe(rewrites[relative(importFixture(), fixture)]);
    }
    expect(
      Object.values(rewrites).every((n) => n === 0),
      JSON.stringify(rewrites),
    ).toBe(true);
  });

  it("holds back an answer still being written while the file is live, and stores it once quiet", async () => {
    const path = join(dir, "mid-answer.jsonl");
    const base = {
      sessionId: "s-mid",
      cwd: "/w",
      timestamp: "2026-01-01T10:00:00.000Z",
    };
    const user = {
      ...base,
      type: "user",
      uuid: "u1",
      parentUuid: null,
      message: { role: "user", content: "hi" },
    };
    const part = (uuid: string, parent: string, block: object) => ({
      ...base,
      type: "assistant",
      uuid,
      parentUuid: parent,
      message: { id: "msg_1", role: "assistant", model: "claude-x", content: [block] },
    });
    await writeFile(
      path,
      `${JSON.stringify(user)}\n${JSON.stringify(part("a1", "u1", { type: "thinking", thinking: "hmm" }))}\n`,
    );
    const store = new CountingStore();
    const live = await importSessions(path, { store, ...LIVE });
    expect(live.sessions[0]).toMatchObject({ status: "created", added: 1, heldBack: 1 });
    await appendFile(
      path,
      `${JSON.stringify(part("a2", "a1", { type: "text", text: "hello" }))}\n`,
    );
    expect((await importSessions(path, { store, ...LIVE })).sessions[0]).toMatchObject({
      status: "unchanged",
      heldBack: 1,
    });
    const quiet = await importSessions(path, { store, now: () => Date.now() + 120_000 });
    expect(quiet.sessions[0]).toMatchObject({ status: "updated", added: 1 });
    expect(quiet.sessions[0]?.heldBack).toBeUndefined();
    const session = await store.open("claude-code-s-mid", { readOnly: true });
    expect(session.getLeafEntry()).toMatchObject({
      message: {
        content: [
          { type: "thinking", thinking: "hmm" },
          { type: "text", text: "hello" },
        ],
      },
    });
    expect(store.rewrites).toBe(0);
  });

  it("never takes an answer stored while the file was quiet for one continued in Arbor", async () => {
    const path = join(dir, "quiet-then-live.jsonl");
    const base = { sessionId: "s-quiet", cwd: "/w", timestamp: "2026-01-01T10:00:00.000Z" };
    const lines = [
      {
        ...base,
        type: "user",
        uuid: "u1",
        parentUuid: null,
        message: { role: "user", content: "hi" },
      },
      {
        ...base,
        type: "assistant",
        uuid: "a1",
        parentUuid: "u1",
        message: {
          id: "msg_1",
          role: "assistant",
          model: "claude-x",
          content: [{ type: "text", text: "Hello." }],
        },
      },
    ];
    await writeFile(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const store = new CountingStore();
    const quiet = await importSessions(path, { store, now: () => Date.now() + 120_000 });
    expect(quiet.sessions[0]).toMatchObject({ status: "created", added: 2 });
    // A bookkeeping line arrives: the answer is still open, the file live again.
    const progress = { ...base, type: "progress", uuid: "p1", parentUuid: "a1", data: {} };
    await appendFile(path, `${JSON.stringify(progress)}\n`);
    const live = await importSessions(path, { store, ...LIVE });
    expect(live.sessions[0]).toMatchObject({ status: "updated", added: 1 });
    expect(live.sessions[0]?.heldBack).toBeUndefined();
    expect(store.rewrites).toBe(0);
  });

  it("keeps each entry's own provenance: a line merged into an answer is not listed on its model change", async () => {
    const [log] = await readClaudeCodeFile(
      importFixture("generated", "claude-code-every-line.jsonl"),
    );
    const entries = log?.entries ?? [];
    const provenance = new Set(entries.map((e) => (e as { importedFrom?: object }).importedFrom));
    expect(provenance.size).toBe(entries.length);
    for (const change of entries.filter((e) => e.type === "model_change"))
      expect(
        (change as { importedFrom?: { merged?: unknown } }).importedFrom?.merged,
      ).toBeUndefined();
  });

  it("holds back an opencode answer not completed yet, and appends it once it is", async () => {
    const data = join(dir, "opencode-live");
    await rm(data, { recursive: true, force: true });
    await mkdir(data, { recursive: true });
    const db = await emptyDatabase(OPENCODE_DDL);
    await databaseFromStorageFixture(db);
    const file = join(data, "opencode.db");
    const session = "ses_5f0a1b2c3ffeABCDEF123456";
    const answer = {
      role: "assistant",
      time: { created: 1759400095000 },
      providerID: "openai",
      modelID: "gpt-5",
    };
    insertMessage(db, "msg_a007", session, 1759400090000, {
      role: "user",
      time: { created: 1759400090000 },
    });
    insertPart(db, "prt_a007a", "msg_a007", session, 1759400090000, {
      type: "text",
      text: "More?",
    });
    insertMessage(db, "msg_a008", session, 1759400095000, answer);
    insertPart(db, "prt_a008a", "msg_a008", session, 1759400095000, { type: "text", text: "Wor" });
    await saveDatabase(db, file);
    const store = new CountingStore();
    const first = await importSessions(data, { store, ...LIVE });
    expect(first.sessions[0]).toMatchObject({ status: "created", heldBack: 1 });

    db.run("UPDATE part SET data = ? WHERE id = 'prt_a008a'", [
      JSON.stringify({ type: "text", text: "Working on it." }),
    ]);
    db.run("UPDATE message SET data = ? WHERE id = 'msg_a008'", [
      JSON.stringify({ ...answer, time: { created: 1759400095000, completed: 1759400099000 } }),
    ]);
    await saveDatabase(db, file);
    const second = await importSessions(data, { store, ...LIVE });
    expect(second.sessions[0]).toMatchObject({ status: "updated", added: 1 });
    expect(store.rewrites).toBe(0);
    const stored = await store.open(`opencode-${session}`, { readOnly: true });
    expect(stored.getLeafEntry()).toMatchObject({
      message: { content: [{ type: "text", text: "Working on it." }] },
    });
  });
});
