import { randomBytes } from "node:crypto";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { afterAll, describe, expect, it, vi } from "vitest";
import { MemoryRunEventLog } from "../src/index.js";
import { LocalRunAdmission } from "../src/runs/local-run-admission.js";
import type { ClusterDb } from "../src/runs/postgres/cluster-db.js";
import { PostgresRunAdmission } from "../src/runs/postgres/postgres-run-admission.js";
import { PostgresRunEventLog } from "../src/runs/postgres/postgres-run-event-log.js";
import type { RunRecord } from "../src/runs/run-record.js";
import { RecordingExecutor } from "./helpers/recording-executor.js";
import { serverDatabaseSuite } from "./helpers/server-database-suite.js";
import { type AdmissionHarness, runAdmissionContract } from "./run-admission.case.js";

const db = serverDatabaseSuite("the PostgreSQL run admission tests", "arbor-server-admission-");

let deadCounter = 0;
function deadRecord(sessionId: string, tenantId: string): RunRecord {
  deadCounter++;
  const at = new Date(Date.now() - 60_000).toISOString();
  return {
    id: `run_${(0xdead0000 + deadCounter).toString(16).padStart(24, "0")}`,
    sessionId,
    tenantId,
    agent: "helper",
    status: "running",
    createdAt: at,
    startedAt: at,
    lastSeq: 0,
  };
}

/** One process: the queue in memory, runs recorded in a memory log. */
async function makeLocal(): Promise<AdmissionHarness> {
  const log = new MemoryRunEventLog();
  const executor = new RecordingExecutor(log);
  const admission = new LocalRunAdmission({ log, executor, now: () => new Date() });
  return {
    admission,
    executor,
    log,
    newSession: async () => `s-${randomBytes(6).toString("hex")}`,
    plantDeadRun: async (sessionId, tenantId) => {
      const record = deadRecord(sessionId, tenantId);
      await log.createRun(record);
      return record.id;
    },
    close: async () => {
      await admission.quiesce();
      await executor.finishAll();
      await admission.close();
    },
  };
}

let store: PostgresSessionStore | undefined;
afterAll(async () => {
  await store?.close();
});

/** A cluster instance: the queue in the `runs` table of a throwaway PostgreSQL. */
async function makeLedger(
  settings: { maxRunsPerInstance?: number; instanceId?: string } = {},
): Promise<AdmissionHarness> {
  store ??= await PostgresSessionStore.connect({ connectionString: db.connectionString });
  const cluster: ClusterDb = {
    pool: db.pool,
    schema: "arbor",
    instanceId: settings.instanceId ?? `test-${randomBytes(4).toString("hex")}`,
    leaseTtlMs: 1000,
  };
  const log = new PostgresRunEventLog(cluster);
  const executor = new RecordingExecutor(log);
  const sessions = store;
  const admission = await PostgresRunAdmission.start({
    db: cluster,
    log,
    executor,
    connectionString: db.connectionString,
    store: sessions,
    agents: new Map(),
    models: { providers: {} },
    pollMs: 50,
    eventRetentionMs: 3_600_000,
    maxRunsPerInstance: settings.maxRunsPerInstance ?? 100,
  });
  return {
    admission,
    executor,
    log,
    newSession: async (tenantId) => {
      const session = await sessions.create({ cwd: "/srv/admission", tenant: tenantId });
      await session.close();
      return session.id;
    },
    plantDeadRun: async (sessionId, tenantId) => {
      const record = deadRecord(sessionId, tenantId);
      // As an instance that died left it: running, its lease expired a while ago.
      await db.pool.query(
        `INSERT INTO arbor.runs (id, session_id, tenant_id, agent, status, position, request,
           created_at, started_at, owner, generation, heartbeat_at, lease_expires)
         VALUES ($1, $2, $3, 'helper', 'running', nextval('arbor.run_positions'), '{"prompt":"hi"}',
           $4, $4, 'dead-instance', 1, $4, now() - interval '1 second')`,
        [record.id, sessionId, tenantId, record.createdAt],
      );
      return record.id;
    },
    close: async () => {
      await admission.quiesce();
      await executor.finishAll();
      await admission.close();
      // What this instance left queued is no other test's to claim.
      await db.pool.query(
        "UPDATE arbor.runs SET status = 'cancelled', ended_at = now() WHERE status = 'queued'",
      );
    },
  };
}

runAdmissionContract("LocalRunAdmission", makeLocal, { queuedAfterQuiesce: "cancelled" });
runAdmissionContract(
  "PostgresRunAdmission",
  () => makeLedger(),
  { queuedAfterQuiesce: "queued" },
  db.available,
);

describe("LocalRunAdmission (one process)", () => {
  it("refuses a run while a change holds the session", async () => {
    const h = await makeLocal();
    try {
      const sessionId = await h.newSession("t1");
      await h.admission.holding(sessionId, "t1", "a compaction", async () => {
        const record = { ...deadRecord(sessionId, "t1"), status: "queued" as const };
        await expect(
          h.admission.admit(record, {
            tenantId: "t1",
            sessionId,
            agent: "helper",
            prompt: "hi",
            ifBusy: "enqueue",
          }),
        ).rejects.toThrow(/busy with a compaction/);
      });
      expect(h.executor.started).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe.skipIf(!db.available)("PostgresRunAdmission (a cluster)", () => {
  it("executes at most maxRunsPerInstance runs at once; the others wait, then start", async () => {
    const h = await makeLedger({ maxRunsPerInstance: 2 });
    try {
      const admitted: RunRecord[] = [];
      for (let i = 0; i < 3; i++) {
        const sessionId = await h.newSession("t1");
        admitted.push(
          await h.admission.admit(
            { ...deadRecord(sessionId, "t1"), id: newId(), status: "queued" },
            { tenantId: "t1", sessionId, agent: "helper", prompt: "hi", ifBusy: "reject" },
          ),
        );
      }
      expect(admitted.map((r) => r.status)).toEqual(["running", "running", "queued"]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(h.executor.executing).toBe(2);
      await h.executor.finish(admitted[0]?.id as string);
      await vi.waitFor(() => expect(h.executor.started).toContain(admitted[2]?.id));
      expect(h.executor.executing).toBe(2);
    } finally {
      await h.close();
    }
  });

  it("a run queued on one instance is claimed by another with room, and executes once", async () => {
    const full = await makeLedger({ maxRunsPerInstance: 0 });
    const free = await makeLedger();
    try {
      const sessionId = await full.newSession("t1");
      const record = await full.admission.admit(
        { ...deadRecord(sessionId, "t1"), id: newId(), status: "queued" },
        { tenantId: "t1", sessionId, agent: "helper", prompt: "hi", ifBusy: "reject" },
      );
      expect(record.status).toBe("queued");
      await vi.waitFor(() => expect(free.executor.started).toEqual([record.id]));
      await free.executor.finish(record.id);
      await vi.waitFor(async () =>
        expect((await free.log.getRun(record.id))?.status).toBe("completed"),
      );
      expect(full.executor.started).toEqual([]);
    } finally {
      await full.close();
      await free.close();
    }
  });
});

function newId(): string {
  return `run_${randomBytes(12).toString("hex")}`;
}
