import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listSessions } from "../listing.js";
import { spareCopyId } from "../spare-copy.js";
import { FileSessionStore } from "../store/file-session-store.js";
import { MemorySessionStore } from "../store/memory-session-store.js";
import type { SessionStore } from "../store/session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { defined } from "./import-test-util.js";
import type { ImportedLog } from "./imported-log.js";
import { importIntoStore } from "./store-import.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-spare-copy-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const line = (n: number) =>
  JSON.stringify({
    uuid: `u${n}`,
    parentUuid: n === 1 ? null : `u${n - 1}`,
    sessionId: "s-spare",
    cwd: "/home/spare",
    timestamp: new Date(Date.UTC(2025, 9, 1, 10, 0, n)).toISOString(),
    type: "user",
    message: { role: "user", content: `question ${n}` },
  });

/** A source whose last line was torn at the first import and is whole now: a rewrite. */
async function tornThenWhole(): Promise<[ImportedLog, ImportedLog]> {
  const path = join(dir, "source.jsonl");
  await writeFile(path, `${line(1)}\n${line(2)}\n${line(3).slice(0, 30)}`);
  const torn = defined((await readClaudeCodeFile(path))[0]);
  await writeFile(path, `${line(1)}\n${line(2)}\n${line(3)}\n`);
  return [torn, defined((await readClaudeCodeFile(path))[0])];
}

/**
 * A store that dies (throws) at the `nth` time of one replacing call, as a killed process
 * would stop there. (A rewrite first clears any old spare: its `delete` of the spare comes
 * once before the spare is stored and once after.)
 */
function dyingAt(store: SessionStore, call: string, nth = 1): SessionStore {
  let seen = 0;
  const die = (name: string) => {
    if (name === call && ++seen === nth) throw new Error(`died at ${name}`);
  };
  return Object.assign(Object.create(store) as SessionStore, {
    importLog: async (text: string, options?: { tenant?: string }) => {
      die(`importLog ${JSON.parse(text.slice(0, text.indexOf("\n"))).id}`);
      return store.importLog(text, options);
    },
    delete: async (id: string, options?: { tenant?: string }) => {
      die(`delete ${id}`);
      return store.delete(id, options);
    },
  });
}

/** Every session file of the file store, by name, in every folder. */
async function filesOf(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const folder of await readdir(root)) {
    for (const name of await readdir(join(root, folder))) {
      if (name.endsWith(".jsonl")) found.push(name);
    }
  }
  return found;
}

const id = "claude-code-s-spare";
const spare = spareCopyId(id);

describe("a spare copy left by a rewrite (file store)", () => {
  it.each([
    ["after storing the spare", `delete ${id}`, 1],
    ["after deleting the old copy", `importLog ${id}`, 1],
    ["before deleting the spare", `delete ${spare}`, 2],
  ])(
    "never lists as a session of its own when the rewrite dies %s, and the next import removes it",
    async (_when, call, nth) => {
      const root = join(dir, "store");
      const store = new FileSessionStore({ root, durability: "never" });
      const [torn, whole] = await tornThenWhole();
      await importIntoStore(store, torn);
      await expect(importIntoStore(dyingAt(store, call, nth), whole)).rejects.toThrow("died at");
      expect((await filesOf(root)).some((n) => n.endsWith(`_${spare}.jsonl`))).toBe(true);

      const listed = (await store.list()).sessions.map((s) => s.id);
      expect(listed.filter((s) => s !== id)).toEqual([]);
      for (const folder of await readdir(root)) {
        const infos = await listSessions(join(root, folder));
        expect(infos.map((s) => s.id).filter((s) => s !== id)).toEqual([]);
      }

      expect(await importIntoStore(store, whole)).toMatchObject({ id });
      expect((await store.list()).sessions.map((s) => s.id)).toEqual([id]);
      expect((await filesOf(root)).filter((n) => n.includes(".replacing"))).toEqual([]);
      const session = await store.open(id, { readOnly: true });
      expect(session.getEntries().map((e) => e.id)).toEqual(["u1", "u2", "u3"]);
      await session.close();
    },
  );

  it("is removed by the next import even when the session was continued in Arbor since", async () => {
    const root = join(dir, "store");
    const store = new FileSessionStore({ root, durability: "never" });
    const [torn, whole] = await tornThenWhole();
    await importIntoStore(store, torn);
    await expect(importIntoStore(dyingAt(store, `delete ${id}`), whole)).rejects.toThrow();
    const session = await store.open(id);
    await session.appendMessage({ role: "user", content: "continued here", timestamp: 1 });
    await session.close();

    const result = await importIntoStore(store, whole);
    expect(result.status).toBe("diverged");
    expect((await filesOf(root)).filter((n) => n.includes(".replacing"))).toEqual([]);
    const kept = await store.open(id, { readOnly: true });
    expect(kept.getLeafEntry()).toMatchObject({ message: { content: "continued here" } });
    await kept.close();
  });

  it("never lists in the memory store either", async () => {
    const store = new MemorySessionStore();
    const [torn, whole] = await tornThenWhole();
    await importIntoStore(store, torn);
    await expect(importIntoStore(dyingAt(store, `delete ${spare}`, 2), whole)).rejects.toThrow();
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([id]);
  });
});
