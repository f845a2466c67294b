import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { type Durability, openSessionFile, SessionLockedError } from "../src/index.js";
import { piFixturesDir } from "./pi-fixtures.js";

const helper = (name: string) => fileURLToPath(new URL(`./helpers/${name}`, import.meta.url));
const piFixture = (name: string) => join(piFixturesDir(), name);
const tempDir = () => mkdtemp(join(tmpdir(), "arbor-durability-"));
const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });

function startChild(
  script: string,
  args: string[],
): { child: ChildProcess; lines: string[]; ready: Promise<void> } {
  const child = spawn(process.execPath, [helper(script), ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  let buffered = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split("\n");
      buffered = parts.pop() ?? "";
      for (const part of parts) {
        if (part === "ready") resolve();
        else lines.push(part);
      }
    });
    child.on("exit", (code) => reject(new Error(`child exited (${code}) before ready: ${stderr}`)));
  });
  return { child, lines, ready };
}

describe("file storage durability", () => {
  it.each<Durability>(["always", "batch", "never"])(
    "stores every acknowledged append in %s mode",
    async (durability) => {
      const path = join(await tempDir(), "s.jsonl");
      const session = await openSessionFile(path, { create: true, durability });
      const ids = await Promise.all(
        Array.from({ length: 50 }, (_, i) => session.appendMessage(user(`m${i}`))),
      );
      await session.close();
      const reopened = await openSessionFile(path, { readOnly: true });
      expect(reopened.getEntries().map((e) => e.id)).toEqual(ids);
      // Concurrent appends chain in call order.
      expect(reopened.getBranch().map((e) => e.id)).toEqual(ids);
    },
  );

  // Killing the process leaves the operating system's cache alone, so in every mode each
  // append written before its promise resolved is in the file; `always` gets more rounds.
  it.each<[Durability, number]>([
    ["always", 12],
    ["batch", 5],
    ["never", 5],
  ])(
    "never leaves a corrupt file or loses an acknowledged append to a SIGKILL (%s mode)",
    async (durability, rounds) => {
      const dir = await tempDir();
      let acknowledgedTotal = 0;
      for (let round = 0; round < rounds; round++) {
        const path = join(dir, `crash-${durability}-${round}.jsonl`);
        const { child, lines, ready } = startChild("append-writer.mjs", [path, durability]);
        await ready;
        await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
        const exited = new Promise((resolve) => child.on("exit", resolve));
        child.kill("SIGKILL");
        await exited;
        const acknowledged = [...lines];
        acknowledgedTotal += acknowledged.length;

        // The dead writer's lock is taken over; the file opens; nothing acknowledged is missing.
        const session = await openSessionFile(path);
        expect(session.problems.filter((p) => p.kind !== "torn_tail")).toEqual([]);
        const stored = new Set(session.getEntries().map((e) => e.id));
        for (const id of acknowledged) expect(stored.has(id)).toBe(true);
        const after = await session.appendMessage(user("after the crash"));
        await session.close();
        const again = await openSessionFile(path, { readOnly: true });
        expect(again.problems).toEqual([]);
        expect(again.getLeafId()).toBe(after);
      }
      // The kills landed mid-stream, not before the first append.
      expect(acknowledgedTotal).toBeGreaterThan(rounds);
    },
  );

  it("refuses a second writer in another process, naming its pid, and recovers after it exits", async () => {
    const path = join(await tempDir(), "locked.jsonl");
    const { child, ready } = startChild("hold-lock.mjs", [path]);
    await ready;
    const error = await openSessionFile(path).catch((e: unknown) => e);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect((error as SessionLockedError).holderPid).toBe(child.pid);
    expect((error as Error).message).toContain(String(child.pid));
    const reader = await openSessionFile(path, { readOnly: true });
    expect(reader.getHeader().cwd).toBe("/lock");
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.stdin?.end();
    await exited;
    const writer = await openSessionFile(path);
    await writer.close();
  });

  it("takes over a lock left by a dead process", async () => {
    const path = join(await tempDir(), "stale.jsonl");
    const { hostname } = await import("node:os");
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), since: 0 }),
    );
    const session = await openSessionFile(path, { create: true });
    await session.appendMessage(user("mine now"));
    await session.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("recreates a file deleted while open, header and all entries included", async () => {
    const path = join(await tempDir(), "deleted.jsonl");
    const session = await openSessionFile(path, { create: true, cwd: "/deleted" });
    const first = await session.appendMessage(user("before"));
    await rm(path);
    const second = await session.appendMessage(user("after delete"));
    await session.appendMessage(user("a branch"));
    await session.branch(second);
    await session.close();
    const reopened = await openSessionFile(path, { readOnly: true });
    expect(reopened.getHeader().cwd).toBe("/deleted");
    expect(
      reopened
        .getEntries()
        .map((e) => e.id)
        .slice(0, 2),
    ).toEqual([first, second]);
    expect(reopened.getEntries()).toHaveLength(3);
    // The navigated leaf survives the recreation too.
    expect(reopened.getLeafId()).toBe(second);
  });

  it("recreates unknown entry types and fields byte for byte", async () => {
    const path = join(await tempDir(), "deleted-unknown.jsonl");
    const lines = [
      '{"type":"session","version":3,"id":"u","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/u","futureHeaderField":[1,{"a":null}]}',
      '{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi ünï 🌳","timestamp":1,"extra":{"x":1.5}},"plugin":true}',
      '{"type":"from_a_newer_pi","id":"f1","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","payload":{"deep":[{"k":"v"}]}}',
    ];
    await writeFile(path, `${lines.join("\n")}\n`);
    const session = await openSessionFile(path);
    await rm(path);
    const next = await session.appendMessage(user("after delete"));
    await session.close();
    const text = await readFile(path, "utf8");
    expect(text.startsWith(`${lines.join("\n")}\n`)).toBe(true);
    expect(text.split("\n")).toHaveLength(lines.length + 2);
    expect(text).toContain(`"id":"${next}"`);
  });

  it("notices a deletion on a later append, and rewrites what the deleted file had", async () => {
    const path = join(await tempDir(), "deleted-later.jsonl");
    const session = await openSessionFile(path, { create: true, durability: "never" });
    const first = await session.appendMessage(user("before"));
    await rm(path);
    const lost = await session.appendMessage(user("into the deleted file"));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const third = await session.appendMessage(user("after the check window"));
    // Recreated by the append itself, before close.
    const meanwhile = await openSessionFile(path, { readOnly: true });
    expect(meanwhile.getEntries().map((e) => e.id)).toEqual([first, lost, third]);
    await session.close();
  });

  it("keeps a torn tail in a sidecar file", async () => {
    const dir = await tempDir();
    const path = join(dir, "torn.jsonl");
    const session = await openSessionFile(path, { create: true });
    await session.appendMessage(user("whole 🌳 ünïcödé 中文"));
    await session.close();
    const torn = '{"type":"message","id":"deadbeef","parentId":null,"timestamp":"2026-01-01T00:0';
    await writeFile(path, (await readFile(path, "utf8")) + torn);
    const again = await openSessionFile(path);
    await again.appendMessage(user("next"));
    await again.close();
    const sidecars = (await readdir(dir)).filter((name) => name.includes(".torn-"));
    expect(sidecars).toHaveLength(1);
    expect(await readFile(join(dir, sidecars[0] as string), "utf8")).toBe(torn);
    const reopened = await openSessionFile(path, { readOnly: true });
    expect(reopened.problems).toEqual([]);
    expect(reopened.getEntries()).toHaveLength(2);
  });

  it("never touches a file that is not JSONL, even when opened for writing", async () => {
    const path = join(await tempDir(), "notes.jsonl");
    const text = "# my notes\nnot a session\n";
    await writeFile(path, text);
    await expect(openSessionFile(path)).rejects.toThrow(
      /notes\.jsonl is not an Arbor or pi session file: line 1 is not JSON/,
    );
    expect(await readFile(path, "utf8")).toBe(text);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });
});

describe("a migration killed part way", () => {
  /** pi's large v1 session four times over (about 4 MB), so the migration takes a while. */
  async function oldFile(): Promise<string> {
    const [header, ...entries] = (await readFile(piFixture("v1-large-session.jsonl"), "utf8"))
      .trimEnd()
      .split("\n");
    return `${[header, ...entries, ...entries, ...entries, ...entries].join("\n")}\n`;
  }

  function untilLine(lines: string[], wanted: string): Promise<void> {
    return vi.waitFor(
      () => {
        if (!lines.includes(wanted)) throw new Error(`no "${wanted}" yet`);
      },
      { timeout: 20_000, interval: 5 },
    );
  }

  async function kill(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.on("exit", resolve));
    expect(child.exitCode).toBeNull(); // still running: the kill, not an exit, ends it
    child.kill("SIGKILL");
    await exited;
  }

  /**
   * What a crash may leave: the old file untouched (a partial backup or temporary file
   * beside it does not matter), or the whole new file with a whole backup. Then a writer
   * opens it, migrates when still needed, and gets the context a crash-free migration gives.
   */
  const version = (text: string) => JSON.parse(text.slice(0, text.indexOf("\n"))).version;
  // Digests keep a failure's message short: the files are megabytes.
  const digest = (value: unknown) =>
    createHash("sha256")
      .update(typeof value === "string" ? value : JSON.stringify(value))
      .digest("hex");

  async function expectOldOrWhole(path: string, original: string, context: unknown) {
    const now = await readFile(path, "utf8");
    const migrated = now !== original;
    if (migrated) {
      expect(version(now)).toBe(3);
      expect(digest(await readFile(`${path}.v1.bak`, "utf8"))).toBe(digest(original));
    }
    const session = await openSessionFile(path);
    expect(session.problems).toEqual([]);
    expect(digest(session.buildSessionContext())).toBe(digest(context));
    await session.close();
    expect(version(await readFile(path, "utf8"))).toBe(3);
    expect(digest(await readFile(`${path}.v1.bak`, "utf8"))).toBe(digest(original));
    // The dead process's temporary file is gone; a half-written backup was rewritten.
    const temps = (await readdir(dirname(path))).filter((f) =>
      f.startsWith(`${basename(path)}.tmp-`),
    );
    expect(temps).toEqual([]);
    return migrated;
  }

  async function reference(dir: string, original: string) {
    const path = join(dir, "reference.jsonl");
    await writeFile(path, original);
    const started = performance.now();
    const session = await openSessionFile(path);
    const ms = performance.now() - started;
    const context = session.buildSessionContext();
    await session.close();
    return { context, ms };
  }

  it.each([
    ["before-backup", false],
    ["mid-backup", false],
    ["before-rename", false],
    ["after-rename", true],
  ] as const)("leaves the old file or the whole new one when killed %s", async (stage, done) => {
    const dir = await tempDir();
    const original = await oldFile();
    const { context } = await reference(dir, original);
    const path = join(dir, `${stage}.jsonl`);
    await writeFile(path, original);
    const { child, lines, ready } = startChild("migrate-opener.mjs", [path, stage]);
    await ready;
    await untilLine(lines, `at ${stage}`);
    await kill(child);
    expect(await expectOldOrWhole(path, original, context)).toBe(done);
  });

  it("leaves the old file or the whole new one when killed at a random moment", async () => {
    const dir = await tempDir();
    const original = await oldFile();
    const { context, ms } = await reference(dir, original);
    const outcomes = { old: 0, migrated: 0 };
    for (let round = 0; round < 6; round++) {
      const path = join(dir, `random-${round}.jsonl`);
      await writeFile(path, original);
      const { child, ready } = startChild("migrate-opener.mjs", [path]);
      await ready;
      // Spread over three times the time a migration takes here (the child starts cold).
      const delay = ((round + Math.random()) / 6) * 3 * ms;
      await new Promise((resolve) => setTimeout(resolve, delay));
      await kill(child);
      outcomes[(await expectOldOrWhole(path, original, context)) ? "migrated" : "old"]++;
    }
    expect(outcomes.old + outcomes.migrated).toBe(6);
  });
});
