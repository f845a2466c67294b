import { type ChildProcess, fork, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { FileSessionStorage, openSessionFile, SessionLockedError } from "../src/index.js";

const racerPath = fileURLToPath(new URL("./helpers/lock-racer.mjs", import.meta.url));
const tempDir = () => mkdtemp(join(tmpdir(), "arbor-stale-lock-"));

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid as number;
}

function startTimeOf(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return text.slice(text.lastIndexOf(")") + 2).split(" ")[19] as string;
}

const hasProc = (() => {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
})();

describe("a stale lock and 16 writers starting at once", () => {
  const racers: ChildProcess[] = [];
  afterAll(() => {
    for (const racer of racers) racer.kill();
  });

  it("has exactly one winner in each of 20 rounds; the others get SessionLockedError naming the lock file", async () => {
    const dir = await tempDir();
    const inbox = new Map<ChildProcess, (message: Record<string, unknown>) => void>();
    const next = (racer: ChildProcess, type: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const listener = (message: Record<string, unknown>) => {
          if (message.type !== type) return;
          racer.off("message", listener);
          resolve(message);
        };
        racer.on("message", listener);
      });
    for (let i = 0; i < 16; i++) {
      const racer = fork(racerPath, [], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
      racers.push(racer);
      inbox.set(racer, () => undefined);
    }
    await Promise.all(racers.map((racer) => next(racer, "ready")));
    const exited = deadPid();

    for (let round = 0; round < 20; round++) {
      const path = join(dir, `s${round}.jsonl`);
      // Alternate: a dead pid, and a live pid (ours) whose start time is not the recorded one.
      const stale =
        round % 2 === 0 || !hasProc
          ? { pid: exited, host: hostname(), since: 1 }
          : { pid: process.pid, host: hostname(), since: 1, startTime: "1" };
      await writeFile(`${path}.lock`, JSON.stringify(stale));
      const results = racers.map((racer) => next(racer, "result"));
      for (const racer of racers) racer.send({ type: "lock", round, path });
      const outcome = await Promise.all(results);
      const winners = outcome.filter((r) => r.won);
      expect(winners, `round ${round}`).toHaveLength(1);
      for (const loser of outcome.filter((r) => !r.won)) {
        expect(loser).toMatchObject({ name: "SessionLockedError", lockPath: `${path}.lock` });
      }
      const winner = racers[outcome.indexOf(winners[0] as Record<string, unknown>)] as ChildProcess;
      const holder = JSON.parse(await readFile(`${path}.lock`, "utf8"));
      expect(holder.pid).toBe(winner.pid);
      const released = next(winner, "released");
      winner.send({ type: "release" });
      await released;
    }
  }, 120_000);
});

describe("who a lock is recovered from", () => {
  it.skipIf(!hasProc)(
    "a live pid with another start time (pid reuse, pid 1 in a container) is recovered",
    async () => {
      const dir = await tempDir();
      for (const pid of [process.pid, 1]) {
        const path = join(dir, `reuse-${pid}.jsonl`);
        await writeFile(
          `${path}.lock`,
          JSON.stringify({ pid, host: hostname(), startTime: "999999999999" }),
        );
        const session = await openSessionFile(path, { create: true });
        expect(JSON.parse(await readFile(`${path}.lock`, "utf8")).pid).toBe(process.pid);
        await session.close();
      }
    },
  );

  it.skipIf(!hasProc)("a live pid with its own start time is not", async () => {
    const path = join(await tempDir(), "live.jsonl");
    await writeFile(
      `${path}.lock`,
      JSON.stringify({ pid: 1, host: hostname(), startTime: startTimeOf(1) }),
    );
    const error = await openSessionFile(path, { create: true }).catch((e: unknown) => e);
    expect(SessionLockedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ holderPid: 1, lockPath: `${path}.lock`, reason: "live" });
  });

  it.skipIf(!hasProc)(
    "a lock without a start time whose pid now belongs to a process started after it is recovered",
    async () => {
      const dir = await tempDir();
      // This test's process started before now: a lock `since` an hour ago cannot be its.
      const path = join(dir, "old-tool.jsonl");
      await writeFile(
        `${path}.lock`,
        JSON.stringify({ pid: process.pid, host: hostname(), since: 1_000 }),
      );
      const session = await openSessionFile(path, { create: true });
      expect(JSON.parse(await readFile(`${path}.lock`, "utf8")).startTime).toBeDefined();
      await session.close();
      // The same lock taken after the process started stays its holder's.
      const held = join(dir, "held.jsonl");
      await writeFile(
        `${held}.lock`,
        JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() }),
      );
      const error = await openSessionFile(held, { create: true }).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: "live", holderPid: process.pid });
    },
  );

  it("a lock from another host is never taken over automatically; the error says how; break takes it", async () => {
    const path = join(await tempDir(), "foreign.jsonl");
    const foreign = JSON.stringify({ pid: deadPid(), host: "elsewhere.example", startTime: "1" });
    await writeFile(`${path}.lock`, foreign);
    for (const policy of [undefined, "auto", "never"] as const) {
      const error = await openSessionFile(path, {
        create: true,
        ...(policy ? { staleLockPolicy: policy } : {}),
      }).catch((e: unknown) => e);
      expect(SessionLockedError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(
        /another host, elsewhere\.example.*staleLockPolicy: "break"/,
      );
      expect(error).toMatchObject({ holderHost: "elsewhere.example", lockPath: `${path}.lock` });
      expect(await readFile(`${path}.lock`, "utf8")).toBe(foreign);
    }
    const session = await openSessionFile(path, { create: true, staleLockPolicy: "break" });
    expect(JSON.parse(await readFile(`${path}.lock`, "utf8")).pid).toBe(process.pid);
    await session.close();
  });

  it("a second writer in the same process is refused; the lock is released at close", async () => {
    const path = join(await tempDir(), "twice.jsonl");
    const first = await openSessionFile(path, { create: true });
    await expect(new FileSessionStorage(path).lock()).rejects.toSatisfy(
      SessionLockedError.isInstance,
    );
    await first.close();
    await expect(readFile(`${path}.lock`)).rejects.toThrow(/ENOENT/);
  });
});
