import { describe, expect, it } from "vitest";
import { SessionStoreError } from "../errors/index.js";
import type { LogProblem } from "../format/session-log.js";
import { Session } from "../session.js";
import type { HeldSession, SessionStorage, StoredLog } from "./session-storage.js";

const header =
  '{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const line = (id: string, parentId: string | null, text: string) =>
  JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: Date.parse("2026-01-01T00:00:01.000Z") },
  });

/**
 * A storage outside the file world: lines in an array, handed over as text, with only the
 * methods every storage has, plus whatever a test gives it.
 */
class LineStorage implements SessionStorage {
  readonly location = "lines:test";
  lines: string[];
  readCount = 0;
  constructor(
    text: string,
    private readonly extra: { content?: string; problems?: LogProblem[] } = {},
  ) {
    this.lines = text === "" ? [] : text.split("\n");
  }
  async read(): Promise<StoredLog | undefined> {
    this.readCount++;
    if (this.lines.length === 0) return undefined;
    return {
      content: this.extra.content ?? this.lines.join("\n"),
      problems: this.extra.problems ?? [],
    };
  }
  async lock(): Promise<void> {}
  async append(lines: readonly string[]): Promise<void> {
    this.lines.push(...lines);
  }
  async replace(lines: readonly string[]): Promise<void> {
    this.lines = [...lines];
  }
  async close(): Promise<void> {}
  async delete(): Promise<void> {
    this.lines = [];
  }
}

describe("the per-log storage seam", () => {
  it("serves a session from lines handed over as text, with the storage's problems", async () => {
    const problem: LogProblem = { kind: "torn_tail", line: 4, message: "line 4 kept in vault" };
    for (const text of ["plain ascii", "emoji 🌳 and ü", `${"long ".repeat(5000)}`]) {
      const lines = [header, line("m1", null, text), line("m2", "m1", `${text}!`)];
      const storage = new LineStorage("", {
        content: `${lines.join("\n")}\n`,
        problems: [problem],
      });
      storage.lines = lines;
      const session = await Session.open(storage, { readOnly: true });
      expect(session.getEntries().map((e) => e.id)).toEqual(["m1", "m2"]);
      expect(session.buildSessionContext().messages.map((m) => m.content)).toEqual([
        text,
        `${text}!`,
      ]);
      expect(session.problems).toEqual([problem]);
    }
  });

  it("tells a storage held for writing what it may ask of the session", async () => {
    const holds: HeldSession[] = [];
    let published = 0;
    const storage = Object.assign(new LineStorage(`${header}\n${line("m1", null, "first")}\n`), {
      hold: (held: HeldSession) => holds.push(held),
      publish: async () => {
        published++;
      },
    });
    const reader = await Session.open(storage, { readOnly: true });
    expect(reader.getEntries()).toHaveLength(1);
    expect(holds).toHaveLength(0); // readers hold nothing
    const session = await Session.open(storage);
    expect(holds).toHaveLength(1);
    const held = holds[0] as HeldSession;
    await session.appendMessage({ role: "user", content: "second", timestamp: 1 });
    await session.setTitle("Named");
    expect(published).toBe(1);
    await held.flush();
    expect(held.writable()).toBe(true);
    expect(held.listingState()).toMatchObject({ id: "s-1", name: "Named", messageCount: 2 });
    // The whole log is what the storage holds (the empty last line is the final newline).
    expect(held.wholeLog()).toEqual(storage.lines.filter((l) => l !== ""));
    await session.branch("m1");
    expect(JSON.parse(held.wholeLog().at(-1) ?? "{}")).toMatchObject({
      type: "leaf",
      parentId: "m1",
    });
    await session.close();
  });

  it("stops telling a held storage to use the session's copy after a failed write", async () => {
    const holds: HeldSession[] = [];
    const storage = Object.assign(new LineStorage(`${header}\n`), {
      hold: (held: HeldSession) => holds.push(held),
    });
    const session = await Session.open(storage);
    storage.append = async () => {
      throw new Error("disk gone");
    };
    await expect(
      session.appendMessage({ role: "user", content: "lost", timestamp: 1 }),
    ).rejects.toThrow("disk gone");
    expect(holds[0]?.writable()).toBe(false);
    expect(holds[0]?.listingState()).toBeUndefined();
  });

  it("refuses to write after a torn last line a storage handed to a writer", async () => {
    for (const torn of ['{"type":"message","id":"m2","par', '{"type', "{"]) {
      const text = `${header}\n${line("m1", null, "a")}\n${torn}`;
      const storage = new LineStorage(text);
      const error = await Session.open(storage).catch((e: unknown) => e);
      expect(SessionStoreError.isInstance(error)).toBe(true);
      expect((error as SessionStoreError).code).toBe("torn_tail");
      expect((error as Error).message).toContain("lines:test");
      expect(storage.lines.join("\n")).toBe(text); // nothing appended after it
      // A reader is shown the problem instead.
      const reader = await Session.open(storage, { readOnly: true });
      expect(reader.problems.map((p) => p.kind)).toEqual(["torn_tail"]);
    }
  });
});
