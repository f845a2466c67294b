import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FileApiKeyStore,
  FileRunEventLog,
  hashKey,
  KeyFileError,
  MemoryRunEventLog,
  type RunEventLog,
  type RunRecord,
} from "../src/index.js";
import type { ServerRunEvent } from "../src/runs/server-run-event.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-files-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const RUN = `run_${"a".repeat(24)}`;

function record(status: RunRecord["status"] = "running", lastSeq = 0): RunRecord {
  return {
    id: RUN,
    sessionId: "s1",
    tenantId: "t1",
    agent: "helper",
    status,
    createdAt: new Date(0).toISOString(),
    lastSeq,
  };
}

/** An event as the log sees it: the envelope, and the fields of its type (kept as they are). */
function delta(seq: number): ServerRunEvent {
  return {
    runId: RUN,
    seq,
    type: "text_delta",
    turnIndex: 0,
    index: 0,
    delta: `d${seq}`,
  } as unknown as ServerRunEvent;
}

describe("FileApiKeyStore", () => {
  it("stores only the SHA-256 of keys, and a second store on the file sees new keys", async () => {
    const path = join(dir, "server", "api-keys.json");
    const first = new FileApiKeyStore(path);
    const tenant = await first.createTenant("acme");
    const issued = await first.createKey(tenant.id, "ci");
    const text = await readFile(path, "utf8");
    expect(text).not.toContain(issued.key);
    expect(text).toContain(hashKey(issued.key));
    const second = new FileApiKeyStore(path);
    expect(await second.authenticate(issued.key)).toEqual({
      keyId: issued.record.id,
      tenantId: tenant.id,
    });
    const later = await first.createKey(tenant.id);
    expect(await second.authenticate(later.key)).toMatchObject({ tenantId: tenant.id });
    expect(await second.authenticate(`${issued.key}x`)).toBeUndefined();
    await first.revokeKey(tenant.id, issued.record.id);
    expect(await second.authenticate(issued.key)).toBeUndefined();
  });

  it("keeps every change when many are made at once, leaving no temporary file", async () => {
    const path = join(dir, "keys.json");
    const store = new FileApiKeyStore(path);
    const tenant = await store.createTenant("acme");
    const issued = await Promise.all(Array.from({ length: 25 }, () => store.createKey(tenant.id)));
    const fresh = new FileApiKeyStore(path);
    for (const key of issued)
      expect(await fresh.authenticate(key.key)).toMatchObject({ tenantId: tenant.id });
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("refuses a key file that is not a key book, and leaves it unchanged", async () => {
    const path = join(dir, "keys.json");
    for (const text of [
      "{not json",
      '{"version":2,"tenants":[],"keys":[]}',
      '{"version":1,"tenants":[{"id":"x"}],"keys":[]}',
    ]) {
      await writeFile(path, text);
      const store = new FileApiKeyStore(path);
      await expect(store.authenticate("arb_x")).rejects.toSatisfy(KeyFileError.isInstance);
      await expect(store.createTenant("a")).rejects.toSatisfy(KeyFileError.isInstance);
      expect(await readFile(path, "utf8")).toBe(text);
    }
  });
});

describe.each([
  ["file", () => new FileRunEventLog(join(dir, "runs"))],
  ["memory", () => new MemoryRunEventLog()],
] as const)("RunEventLog (%s)", (_name, make: () => RunEventLog) => {
  it("gives the events after a seq, in order, and tells watchers after they are stored", async () => {
    const log = make();
    await log.createRun(record());
    const seen: number[] = [];
    const stop = log.watch(RUN, () => {
      void log.readEvents(RUN, 0).then((events) => seen.push(events.length));
    });
    await log.appendEvents(RUN, [delta(1), delta(2)]);
    await log.appendEvents(RUN, [delta(3)]);
    expect((await log.readEvents(RUN, 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await log.readEvents(RUN, 2)).map((e) => e.seq)).toEqual([3]);
    expect(await log.readEvents(RUN, 3)).toEqual([]);
    expect((await log.readEvents(RUN, 0, 2)).map((e) => e.seq)).toEqual([1, 2]);
    await new Promise((r) => setTimeout(r, 10));
    expect(seen[0]).toBeGreaterThanOrEqual(2);
    stop();
    await log.updateRun(record("completed", 3));
    expect((await log.getRun(RUN))?.status).toBe("completed");
    expect((await log.readEvents(RUN, 1)).map((e) => e.seq)).toEqual([2, 3]);
    expect(await log.getRun(`run_${"b".repeat(24)}`)).toBeUndefined();
    await log.close();
  });
});

describe("runs left by a stopped process", () => {
  it("are reported interrupted, with their events kept, and their streams end", async () => {
    const { makeTestApp } = await import("./helpers/test-app.js");
    const t = await makeTestApp({ files: true });
    try {
      const previous = new FileRunEventLog((t.deps.log as FileRunEventLog).dir);
      for (const [id, status] of [
        [RUN, "running"],
        [`run_${"c".repeat(24)}`, "queued"],
      ] as const) {
        await previous.createRun({ ...record(status), id, tenantId: t.alice.tenantId });
      }
      await previous.appendEvents(RUN, [delta(1), delta(2)]);
      const res = await t.call("GET", `/v1/runs/${RUN}`);
      expect(await res.json()).toMatchObject({
        status: "interrupted",
        error: { code: "interrupted" },
      });
      const events = await (await t.call("GET", `/v1/runs/run_${"c".repeat(24)}/events`)).text();
      expect(events).toMatch(/event: end\ndata: .*"status":"interrupted"/);
      const replay = await (await t.call("GET", `/v1/runs/${RUN}/events`)).text();
      expect(replay.match(/^id: /gm)).toHaveLength(2);
      expect(replay).toContain("event: end");
      expect((await t.call("GET", `/v1/runs/${RUN}`, { key: t.bob.key })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("FileRunEventLog", () => {
  it("replays a run from disk in a new process, skipping a line torn by a crash", async () => {
    const first = new FileRunEventLog(join(dir, "runs"));
    await first.createRun(record());
    await first.appendEvents(RUN, [delta(1), delta(2)]);
    await appendFile(join(dir, "runs", RUN, "events.jsonl"), '{"runId":"run_');
    const second = new FileRunEventLog(join(dir, "runs"));
    expect((await second.getRun(RUN))?.status).toBe("running");
    expect((await second.readEvents(RUN, 0)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("keeps a run's event file open only while the run lives", async () => {
    const openFiles = async () => (await readdir("/proc/self/fd")).length;
    const log = new FileRunEventLog(join(dir, "runs"));
    const before = await openFiles();
    const ids = Array.from({ length: 30 }, (_, i) => `run_${String(i).padStart(24, "0")}`);
    for (const id of ids) {
      await log.createRun({ ...record(), id });
      await log.appendEvents(id, [{ ...delta(1), runId: id } as ServerRunEvent]);
    }
    expect(await openFiles()).toBeGreaterThanOrEqual(before + 30);
    for (const id of ids) await log.updateRun({ ...record("completed", 1), id });
    expect(await openFiles()).toBeLessThanOrEqual(before);
    // Ended, each is read back from its files.
    const fresh = new FileRunEventLog(join(dir, "runs"));
    for (const id of ids) {
      expect((await fresh.getRun(id))?.status).toBe("completed");
      expect((await fresh.readEvents(id, 0)).map((e) => e.seq)).toEqual([1]);
    }
  });

  it("never turns a hostile run id into a path", async () => {
    const log = new FileRunEventLog(join(dir, "runs"));
    for (const id of ["../../etc/passwd", "run_../x", `run_${"a".repeat(23)}/`, "", "run_\u0000"]) {
      expect(await log.getRun(id)).toBeUndefined();
      expect(await log.readEvents(id, 0)).toEqual([]);
    }
  });
});
