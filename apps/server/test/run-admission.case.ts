import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunAdmission } from "../src/runs/run-admission.js";
import type { RunEventLog } from "../src/runs/run-event-log.js";
import { isTerminal, type RunRecord } from "../src/runs/run-record.js";
import type { IfBusy, StartRunRequest } from "../src/runs/run-request.js";
import type { RecordingExecutor } from "./helpers/recording-executor.js";

/** One admission under test, with the executor it hands runs to and the log it records in. */
export interface AdmissionHarness {
  admission: RunAdmission;
  executor: RecordingExecutor;
  log: RunEventLog;
  /** A new session of `tenantId` runs may be admitted on. */
  newSession(tenantId: string): Promise<string>;
  /**
   * Stores a run on the session as a process that then died left it: running, held by no
   * live process.
   * @returns the run's id
   */
  plantDeadRun(sessionId: string, tenantId: string): Promise<string>;
  close(): Promise<void>;
}

/** What differs between the implementations, stated rather than hidden in the cases. */
export interface AdmissionTraits {
  /** What a run still queued in this process is once admission quiesced. */
  queuedAfterQuiesce: "cancelled" | "queued";
}

const TENANT = "t_0000000000000001";
const OTHER = "t_0000000000000002";
/** A queue as long as clients usually make one; the long-queue case uses ten times this. */
const USUAL_QUEUE = 5;

let counter = 0;
function draft(sessionId: string, tenantId = TENANT): RunRecord {
  counter++;
  return {
    id: `run_${(0xad000000 + counter).toString(16).padStart(24, "0")}`,
    sessionId,
    tenantId,
    agent: "helper",
    status: "queued",
    createdAt: new Date().toISOString(),
    lastSeq: 0,
  };
}

function request(sessionId: string, ifBusy: IfBusy, tenantId = TENANT): StartRunRequest {
  return { tenantId, sessionId, agent: "helper", prompt: "hello", ifBusy };
}

/**
 * The admission contract: every {@link RunAdmission} decides the same way, whether its
 * queue lives in memory or in PostgreSQL. Run by `run-admissions.test.ts` against each.
 */
export function runAdmissionContract(
  name: string,
  make: () => Promise<AdmissionHarness>,
  traits: AdmissionTraits,
  available = true,
): void {
  describe.skipIf(!available)(`${name} (the RunAdmission contract)`, () => {
    let h: AdmissionHarness;
    afterEach(async () => {
      await h?.close();
    });

    async function admit(sessionId: string, ifBusy: IfBusy, tenantId = TENANT) {
      return h.admission.admit(draft(sessionId, tenantId), request(sessionId, ifBusy, tenantId));
    }
    async function statusOf(runId: string) {
      return (await h.log.getRun(runId))?.status;
    }
    /** Reads a run as the service does: one nobody here holds is asked of admission. */
    async function read(runId: string): Promise<RunRecord | undefined> {
      const record = await h.log.getRun(runId);
      if (!record || isTerminal(record.status)) return record;
      if (h.executor.has(runId) || h.admission.knows(runId)) return record;
      return h.admission.orphan(record);
    }
    const startedSoon = (ids: string[]) =>
      vi.waitFor(() => expect(h.executor.started).toEqual(ids), { timeout: 5000, interval: 10 });

    it("starts a run on a free session at once, recorded running", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const record = await admit(sessionId, "reject");
      expect(record).toMatchObject({ sessionId, tenantId: TENANT, status: "running" });
      await startedSoon([record.id]);
      expect(await statusOf(record.id)).toBe("running");
      expect(await h.admission.activeRunOf(sessionId, TENANT)).toBe(record.id);
    });

    it("refuses a second run on a busy session with reject, naming the run, and starts nothing", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const first = await admit(sessionId, "reject");
      const refused = admit(sessionId, "reject");
      await expect(refused).rejects.toMatchObject({ status: 409, code: "session_busy" });
      await expect(refused).rejects.toThrow(first.id);
      await startedSoon([first.id]);
      // The session is another's: a run there is free to start.
      const other = await admit(await h.newSession(TENANT), "reject");
      await startedSoon([first.id, other.id]);
    });

    it("queues runs on a busy session and starts them one after the other, in order", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const first = await admit(sessionId, "enqueue");
      const queued = [await admit(sessionId, "enqueue"), await admit(sessionId, "enqueue")];
      expect(queued.map((r) => r.status)).toEqual(["queued", "queued"]);
      const order = [first, ...queued].map((r) => r.id);
      for (let i = 0; i < order.length; i++) {
        await startedSoon(order.slice(0, i + 1));
        await h.executor.finish(order[i] as string);
      }
      await vi.waitFor(async () => expect(h.executor.executing).toBe(0));
      expect(h.executor.maxPerSession).toBe(1);
      for (const id of order) expect(await statusOf(id)).toBe("completed");
    });

    it(`keeps a queue of ${USUAL_QUEUE * 10} runs (ten times the usual) in order, each started once`, async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const order: string[] = [];
      for (let i = 0; i < USUAL_QUEUE * 10; i++) order.push((await admit(sessionId, "enqueue")).id);
      for (let i = 0; i < order.length; i++) {
        await startedSoon(order.slice(0, i + 1));
        await h.executor.finish(order[i] as string);
      }
      await vi.waitFor(async () =>
        expect(await statusOf(order.at(-1) as string)).toBe("completed"),
      );
      expect(h.executor.started).toEqual(order);
      expect(h.executor.maxPerSession).toBe(1);
    }, 30_000);

    it("with interrupt, aborts the running run and starts the new one before older queued ones", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const running = await admit(sessionId, "reject");
      const waiting = await admit(sessionId, "enqueue");
      const urgent = await admit(sessionId, "interrupt");
      expect(urgent.status).toBe("queued");
      await vi.waitFor(() =>
        expect(h.executor.signals).toContainEqual({ runId: running.id, what: "abort" }),
      );
      await startedSoon([running.id, urgent.id]);
      await h.executor.finish(urgent.id);
      await startedSoon([running.id, urgent.id, waiting.id]);
      expect(await statusOf(running.id)).toBe("aborted");
    });

    it("a queued run that is cancelled (stopped or aborted) never starts, and the queue goes on", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const running = await admit(sessionId, "reject");
      const stopped = await admit(sessionId, "enqueue");
      const aborted = await admit(sessionId, "enqueue");
      const last = await admit(sessionId, "enqueue");
      const cancelled = await h.admission.cancel(stopped.id, "stopped before it started");
      expect(cancelled).toMatchObject({
        id: stopped.id,
        status: "cancelled",
        error: { code: "cancelled", message: "stopped before it started" },
      });
      expect(cancelled?.endedAt).toBeDefined();
      await h.admission.cancel(aborted.id, "aborted before it started");
      // Neither a second cancel nor one of a run that is not waiting changes anything.
      expect(await h.admission.cancel(stopped.id, "again")).toBeUndefined();
      expect(await h.admission.cancel(running.id, "running")).toBeUndefined();
      await h.executor.finish(running.id);
      await startedSoon([running.id, last.id]);
      await vi.waitFor(async () => {
        expect(await statusOf(stopped.id)).toBe("cancelled");
        expect(await statusOf(aborted.id)).toBe("cancelled");
      });
      expect((await h.log.getRun(aborted.id))?.error?.message).toBe("aborted before it started");
    });

    it("names the session's running run to its tenant only, and none once it ended", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const run = await admit(sessionId, "reject");
      expect(await h.admission.activeRunOf(sessionId, TENANT)).toBe(run.id);
      expect(await h.admission.activeRunOf(sessionId, OTHER)).toBeUndefined();
      await startedSoon([run.id]);
      await h.executor.finish(run.id);
      await vi.waitFor(async () =>
        expect(await h.admission.activeRunOf(sessionId, TENANT)).toBeUndefined(),
      );
    });

    it("holds a session for a change only when no run or other change holds it", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const run = await admit(sessionId, "reject");
      const work = vi.fn(async () => "done");
      await expect(
        h.admission.holding(sessionId, TENANT, "a navigate", work),
      ).rejects.toMatchObject({ status: 409, code: "session_busy" });
      expect(work).not.toHaveBeenCalled();
      await startedSoon([run.id]);
      await h.executor.finish(run.id);
      await vi.waitFor(async () =>
        expect(await h.admission.activeRunOf(sessionId, TENANT)).toBeUndefined(),
      );
      const inner = await h.admission.holding(sessionId, TENANT, "a compaction", async () => {
        const second = h.admission.holding(sessionId, TENANT, "a navigate", work);
        await expect(second).rejects.toThrow(/busy with a compaction/);
        return "held";
      });
      expect(inner).toBe("held");
      expect(work).not.toHaveBeenCalled();
      // Released: the next change takes the session.
      expect(await h.admission.holding(sessionId, TENANT, "a navigate", work)).toBe("done");
    });

    it("a run whose holder died ends interrupted, is never started, and frees its session", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const dead = await h.plantDeadRun(sessionId, TENANT);
      await vi.waitFor(async () => expect((await read(dead))?.status).toBe("interrupted"), {
        timeout: 10_000,
        interval: 50,
      });
      expect((await h.log.getRun(dead))?.error?.code).toBe("interrupted");
      const next = await admit(sessionId, "reject");
      await startedSoon([next.id]);
      expect(h.executor.started).not.toContain(dead);
    }, 20_000);

    it("after quiesce hands no more runs to this process", async () => {
      h = await make();
      const sessionId = await h.newSession(TENANT);
      const running = await admit(sessionId, "reject");
      const queued = await admit(sessionId, "enqueue");
      await h.admission.quiesce();
      await h.executor.finish(running.id);
      await vi.waitFor(async () =>
        expect(await statusOf(queued.id)).toBe(traits.queuedAfterQuiesce),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(h.executor.started).toEqual([running.id]);
    });
  });
}
