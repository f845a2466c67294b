import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { type Durability, openSessionFile } from "../src/index.js";

/** Counts the file storage's fsyncs, which finish only after `delayMs`, as on a slow disk. */
const syncs = vi.hoisted(() => ({ started: 0, finished: 0, delayMs: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const fdatasync = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    syncs.started++;
    actual.fdatasync(fd, (error) => {
      setTimeout(() => {
        syncs.finished++;
        callback(error);
      }, syncs.delayMs);
    });
  };
  return { ...actual, default: { ...actual, fdatasync }, fdatasync };
});

const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });
const tempFile = async () => join(await mkdtemp(join(tmpdir(), "arbor-modes-")), "s.jsonl");

beforeEach(() => {
  syncs.started = 0;
  syncs.finished = 0;
  syncs.delayMs = 0;
});

describe("durability modes", () => {
  it.each<Durability>(["always", "batch", "never"])(
    "%s: every append is in the file when its promise resolves",
    async (durability) => {
      const path = await tempFile();
      const session = await openSessionFile(path, { create: true, durability });
      for (let i = 0; i < 5; i++) {
        const id = await session.appendMessage(user(`one at a time ${i}`));
        expect(readFileSync(path, "utf8")).toContain(`"id":"${id}"`);
      }
      // Fired together: each one is stored by the time it, not the last, resolves.
      const checked = Array.from({ length: 20 }, (_, i) =>
        session
          .appendMessage(user(`together ${i}`))
          .then((id) => readFileSync(path, "utf8").includes(`"id":"${id}"`)),
      );
      expect(await Promise.all(checked)).toEqual(Array(20).fill(true));
      await session.close();
    },
  );

  it("always: an append resolves only after an fsync that finished after its write", async () => {
    const session = await openSessionFile(await tempFile(), { create: true, durability: "always" });
    syncs.delayMs = 5;
    for (let i = 1; i <= 5; i++) {
      const finishedBefore = syncs.finished;
      await session.appendMessage(user(`synced ${i}`));
      expect(syncs.finished).toBeGreaterThan(finishedBefore);
    }
    // Appends made while an fsync runs share the next one (group commit).
    const startedBefore = syncs.started;
    await Promise.all(Array.from({ length: 30 }, (_, i) => session.appendMessage(user(`g${i}`))));
    expect(syncs.started - startedBefore).toBeGreaterThanOrEqual(1);
    expect(syncs.started - startedBefore).toBeLessThanOrEqual(3);
    await session.close();
  });

  it("batch: appends resolve without waiting for an fsync, and one fsync follows them", async () => {
    const session = await openSessionFile(await tempFile(), { create: true, durability: "batch" });
    syncs.delayMs = 200;
    await Promise.all(Array.from({ length: 30 }, (_, i) => session.appendMessage(user(`b${i}`))));
    expect(syncs.finished).toBe(0);
    await session.close();
    expect(syncs.started).toBe(1);
    expect(syncs.finished).toBe(1);
  });

  it("never: appends and close never fsync", async () => {
    const session = await openSessionFile(await tempFile(), { create: true, durability: "never" });
    for (let i = 0; i < 10; i++) await session.appendMessage(user(`n${i}`));
    await session.close();
    expect(syncs.started).toBe(0);
  });
});
