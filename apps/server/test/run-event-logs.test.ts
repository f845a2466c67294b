import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  FileRunEventLog,
  MemoryRunEventLog,
  type RunEventLog,
  type RunRecord,
} from "../src/index.js";
import { PostgresRunEventLog } from "../src/runs/postgres/postgres-run-event-log.js";
import { RunLeaseLostError } from "../src/runs/postgres/run-lease-lost-error.js";
import type { ServerRunEvent } from "../src/runs/server-run-event.js";
import { serverDatabaseSuite } from "./helpers/server-database-suite.js";

const db = serverDatabaseSuite("the PostgreSQL run log tests", "arbor-server-logs-");

let counter = 0;
function newRecord(): RunRecord {
  counter++;
  return {
    id: `run_${counter.toString(16).padStart(24, "0")}`,
    sessionId: `s-${counter}`,
    tenantId: "t_0000000000000001",
    agent: "helper",
    status: "queued",
    createdAt: new Date().toISOString(),
    lastSeq: 0,
  };
}

function deltas(from: number, count: number, runId: string): ServerRunEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: "text_delta",
    seq: from + i,
    runId,
    timestamp: 0,
    turnIndex: 0,
    index: 0,
    delta: `d${from + i} "quoted" \\ {json} ünïcode`,
  })) as unknown as ServerRunEvent[];
}

const pgDb = () => ({
  pool: db.pool,
  schema: "arbor",
  instanceId: "test",
  leaseTtlMs: 5000,
});

/** Every run log: the same behaviour, whatever keeps the events. */
const logs: Array<[string, () => RunEventLog, boolean]> = [
  ["MemoryRunEventLog", () => new MemoryRunEventLog(), true],
  ["FileRunEventLog", () => new FileRunEventLog(join(db.dir, `runs-${Math.random()}`)), true],
  ["PostgresRunEventLog", () => new PostgresRunEventLog(pgDb()), db.available],
];

for (const [name, make, available] of logs) {
  describe.skipIf(!available)(`${name} (the RunEventLog contract)`, () => {
    it("stores a run and its events in seq order, reads them back exactly and in pages, and tells watchers after storing", async () => {
      const log = make();
      const record = newRecord();
      await log.createRun(record);
      const running: RunRecord = { ...record, status: "running", startedAt: record.createdAt };
      await log.updateRun(running);
      const told: number[] = [];
      const stop = log.watch(record.id, () => {
        void log.readEvents(record.id, 0).then((events) => told.push(events.length));
      });
      const first = deltas(1, 3, record.id);
      const second = deltas(4, 600, record.id);
      await log.appendEvents(record.id, first);
      await log.appendEvents(record.id, second);
      await new Promise((r) => setTimeout(r, 50));
      expect(told.length).toBeGreaterThan(0);
      expect(told.every((n) => n >= 3)).toBe(true);
      stop();
      expect(await log.readEvents(record.id, 0, 10_000)).toEqual([...first, ...second]);
      expect(await log.readEvents(record.id, 2, 2)).toEqual(
        first.slice(2).concat(second.slice(0, 1)),
      );
      expect(await log.readEvents(record.id, 602)).toEqual(second.slice(-1));
      expect(await log.readEvents(record.id, 603)).toEqual([]);
      const ended: RunRecord = {
        ...running,
        status: "completed",
        endedAt: new Date().toISOString(),
        lastSeq: 603,
        result: { success: true, runId: record.id },
      };
      await log.updateRun(ended);
      expect(await log.getRun(record.id)).toMatchObject({
        id: record.id,
        status: "completed",
        lastSeq: 603,
        result: { success: true },
      });
      expect(await log.getRun("run_ffffffffffffffffffffffff")).toBeUndefined();
      await log.close();
    });
  });
}

describe.skipIf(!db.available)("PostgresRunEventLog fencing", () => {
  it("refuses writes of a generation that is not the run's, and of a run no longer running; a retried batch is stored once", async () => {
    const log = new PostgresRunEventLog(pgDb());
    const record = newRecord();
    await log.createRun(record);
    await db.pool.query("UPDATE arbor.runs SET status = 'running', generation = 2 WHERE id = $1", [
      record.id,
    ]);
    log.hold(record.id, 2);
    await log.appendEvents(record.id, deltas(1, 2, record.id));
    await log.appendEvents(record.id, deltas(1, 2, record.id));
    expect(await log.readEvents(record.id, 0)).toHaveLength(2);
    for (const stale of [1, 3]) {
      log.hold(record.id, stale);
      await expect(log.appendEvents(record.id, deltas(3, 1, record.id))).rejects.toSatisfy(
        RunLeaseLostError.isInstance,
      );
      await expect(log.updateRun({ ...record, status: "completed", lastSeq: 3 })).rejects.toSatisfy(
        RunLeaseLostError.isInstance,
      );
    }
    await db.pool.query("UPDATE arbor.runs SET status = 'interrupted' WHERE id = $1", [record.id]);
    log.hold(record.id, 2);
    await expect(log.appendEvents(record.id, deltas(3, 1, record.id))).rejects.toSatisfy(
      RunLeaseLostError.isInstance,
    );
    expect(await log.readEvents(record.id, 0)).toHaveLength(2);
    expect((await log.getRun(record.id))?.status).toBe("interrupted");
  });
});
