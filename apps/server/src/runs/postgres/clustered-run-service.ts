import { randomBytes } from "node:crypto";
import type { ImagePart } from "@arbor/providers";
import { ApiError, runInProgress } from "../../errors/index.js";
import type { UiAnswer } from "../../extensions/ui-answer.js";
import { assertSessionExists } from "../assert-session.js";
import type { RunControl } from "../run-control.js";
import { isTerminal, type RunRecord } from "../run-record.js";
import type { StartRunRequest } from "../run-request.js";
import { RunService, type RunServiceOptions } from "../run-service.js";
import { CHANNELS, type ClusterDb } from "./cluster-db.js";
import type { PostgresRunEventLog } from "./postgres-run-event-log.js";
import { buryRun } from "./run-burial.js";
import { type ClaimedRun, RunLedger } from "./run-ledger.js";
import { RunNotifier } from "./run-notifier.js";
import { UiAnswerRelay } from "./ui-answer-relay.js";

/** How a {@link ClusteredRunService} works with the cluster. */
export interface ClusteredRunServiceOptions extends Omit<RunServiceOptions, "log" | "openRetryMs"> {
  db: ClusterDb;
  log: PostgresRunEventLog;
  /** For the dedicated `LISTEN` connection. */
  connectionString: string;
  /** The backstop: how often watched runs, expired leases and queued runs are looked at. */
  pollMs: number;
  /** How long running runs may finish on shutdown before they are interrupted. */
  shutdownGraceMs: number;
  /** How long run events are kept after their run ended. */
  eventRetentionMs: number;
  /** The most runs this instance executes at once; more wait queued for any instance. */
  maxRunsPerInstance: number;
  /** Where failures of background work (heartbeat, polling) are reported. */
  report?: (error: unknown) => void;
}

/** A new run id. */
function newRunId(): string {
  return `run_${randomBytes(12).toString("hex")}`;
}

/**
 * Runs on several instances sharing one PostgreSQL: admission and the queue live in the
 * `runs` table ({@link RunLedger}), any instance claims a run that may start and executes
 * it in its own {@link RunService} under a lease it renews; a run whose instance died is
 * marked interrupted by a survivor after the lease expires, never run again. Stop and abort
 * reach the executing instance through `NOTIFY` (and the heartbeat, as a backstop).
 */
export class ClusteredRunService implements RunControl {
  private readonly local: RunService;
  private readonly ledger: RunLedger;
  private readonly notifier: RunNotifier;
  private readonly answers: UiAnswerRelay;
  /** Runs executing here, by id. */
  private readonly mine = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private closed = false;
  private lastPrune = 0;
  /** Runs of dead instances being ended here. */
  private readonly burials = new Set<Promise<void>>();

  private constructor(private readonly options: ClusteredRunServiceOptions) {
    this.local = new RunService({
      ...options,
      // A run of a dead instance may leave its session's write lease behind for a while.
      openRetryMs: options.db.leaseTtlMs * 2,
    });
    this.ledger = new RunLedger(options.db);
    this.answers = new UiAnswerRelay(options.db, 5_000);
    this.notifier = new RunNotifier({
      connectionString: options.connectionString,
      handlers: {
        [CHANNELS.runEvents]: (payload) => options.log.announce(payload.split(":")[0] ?? ""),
        [CHANNELS.runControl]: (payload) => {
          const [runId, what, answerId] = payload.split(":");
          if (runId && (what === "stop" || what === "abort")) this.local.signal(runId, what);
          if (runId && what === "answer" && this.mine.has(runId))
            this.takeAnswers([runId], answerId).catch((error) => options.report?.(error));
        },
        [CHANNELS.runsQueued]: () => this.kick(),
      },
      onReconnect: () => {
        options.log.announceAll();
        this.kick();
      },
    });
  }

  /** Listens, starts the heartbeat and the backstop, and claims what waits. */
  static async start(options: ClusteredRunServiceOptions): Promise<ClusteredRunService> {
    const service = new ClusteredRunService(options);
    await service.notifier.start();
    const every = (ms: number, work: () => Promise<unknown>) => {
      let busy = false;
      const timer = setInterval(async () => {
        if (busy) return;
        busy = true;
        try {
          await work();
        } catch (error) {
          options.report?.(error);
        } finally {
          busy = false;
        }
      }, ms);
      service.timers.push(timer);
    };
    every(Math.max(50, Math.floor(options.db.leaseTtlMs / 3)), () => service.beat());
    every(options.pollMs, () => service.tick());
    service.kick();
    return service;
  }

  /** {@inheritDoc RunControl.agentNames} */
  get agentNames(): string[] {
    return this.local.agentNames;
  }

  /** {@inheritDoc RunControl.start} */
  async start(request: StartRunRequest): Promise<RunRecord> {
    this.local.checkRequest(request);
    await assertSessionExists(this.options.store, request.sessionId, request.tenantId);
    const { record, claimed } = await this.ledger.admit({
      record: {
        id: newRunId(),
        sessionId: request.sessionId,
        tenantId: request.tenantId,
        agent: request.agent,
        status: "queued",
        createdAt: (this.options.now?.() ?? new Date()).toISOString(),
        lastSeq: 0,
      },
      request: {
        prompt: request.prompt,
        ...(request.images ? { images: request.images } : {}),
        ...(request.command ? { command: request.command } : {}),
      },
      ifBusy: request.ifBusy,
      claimHere: !this.closed && this.local.executing < this.options.maxRunsPerInstance,
    });
    if (claimed) this.execute(claimed);
    else this.kick();
    return record;
  }

  /** {@inheritDoc RunControl.get} */
  async get(runId: string, tenantId: string): Promise<RunRecord> {
    const record = await this.options.log.getRun(runId);
    if (!record || record.tenantId !== tenantId)
      throw new ApiError(404, "run_not_found", `no run "${runId}"`);
    return record;
  }

  /** {@inheritDoc RunControl.holding} */
  async holding<T>(
    sessionId: string,
    tenantId: string,
    what: string,
    work: () => Promise<T>,
  ): Promise<T> {
    const runId = await this.ledger.activeRunOf(sessionId, tenantId);
    if (runId !== undefined) {
      throw runInProgress(sessionId, runId, "change");
    }
    return this.local.holding(sessionId, tenantId, what, work);
  }

  /** {@inheritDoc RunControl.activeRunOf} */
  activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    return this.ledger.activeRunOf(sessionId, tenantId);
  }

  /**
   * {@inheritDoc RunControl.answerUi}
   * An answer for a run executing on another instance is relayed to it; the client gets
   * that instance's verdict.
   */
  async answerUi(
    runId: string,
    requestId: string,
    answer: UiAnswer,
    tenantId: string,
  ): Promise<void> {
    const record = await this.get(runId, tenantId);
    if (record.status !== "running" || this.mine.has(runId))
      return this.local.answerUi(runId, requestId, answer, tenantId);
    await this.answers.relay(runId, requestId, answer);
  }

  /** {@inheritDoc RunControl.stop} */
  stop(runId: string, tenantId: string): Promise<RunRecord> {
    return this.control(runId, tenantId, "stop");
  }

  /** {@inheritDoc RunControl.abort} */
  abort(runId: string, tenantId: string): Promise<RunRecord> {
    return this.control(runId, tenantId, "abort");
  }

  private async control(
    runId: string,
    tenantId: string,
    what: "stop" | "abort",
  ): Promise<RunRecord> {
    const record = await this.get(runId, tenantId);
    if (isTerminal(record.status)) return record;
    if (this.local.signal(runId, what)) return record;
    const why = what === "stop" ? "stopped before it started" : "aborted before it started";
    const cancelled = await this.ledger.cancelQueued(runId, why);
    if (cancelled) return cancelled;
    await this.ledger.requestControl(runId, what);
    return this.get(runId, tenantId);
  }

  /**
   * Graceful shutdown: takes no more runs (queued ones stay for other instances), lets the
   * running ones finish for the grace period, then interrupts the rest.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.local.stopAdmitting();
    await this.claiming;
    await this.local.close({ graceMs: this.options.shutdownGraceMs });
    await Promise.all([...this.burials]);
    for (const timer of this.timers) clearInterval(timer);
    await this.notifier.close();
  }

  /** Claims runs that may start, as long as this instance has room; one loop at a time. */
  private kick(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = (async () => {
      try {
        do {
          this.claimAgain = false;
          while (!this.closed && this.local.executing < this.options.maxRunsPerInstance) {
            const claimed = await this.ledger.claim();
            if (!claimed) break;
            this.execute(claimed);
          }
        } while (this.claimAgain && !this.closed);
      } catch (error) {
        this.options.report?.(error);
      } finally {
        this.claiming = undefined;
      }
    })();
  }

  private execute({ record, request, generation }: ClaimedRun): void {
    this.options.log.hold(record.id, generation);
    this.mine.add(record.id);
    const ended = this.local.adopt(record, {
      tenantId: record.tenantId,
      sessionId: record.sessionId,
      agent: record.agent,
      prompt: request.prompt,
      ...(request.images ? { images: request.images as ImagePart[] } : {}),
      ...(request.command ? { command: request.command } : {}),
      ifBusy: "reject",
    });
    ended
      .catch(() => undefined)
      .finally(() => {
        this.mine.delete(record.id);
        this.options.log.release(record.id);
        this.kick();
      });
  }

  /** Renews the leases; a run no longer ours is aborted here, asked controls are applied. */
  private async beat(): Promise<void> {
    // Runs claimed before the renewal was sent: one of them missing from the answer lost its
    // lease (this instance stalled or lost the database past the TTL and a survivor marked it
    // interrupted). It is stopped here; its writes are already refused by the generation fence.
    const before = [...this.mine];
    const { held } = await this.ledger
      .heartbeat(this.notifier)
      .catch(() => this.ledger.heartbeat());
    for (const runId of before) {
      if (!held.has(runId) && this.mine.has(runId)) this.local.signal(runId, "abort");
    }
    for (const [runId, control] of held) {
      if (control === "stop" || control === "abort") this.local.signal(runId, control);
    }
    // The backstop of relayed answers whose notification was lost.
    await this.takeAnswers([...held.keys()]);
  }

  /** Delivers the relayed answers of runs executing here to their extensions. */
  private takeAnswers(runIds: string[], onlyId?: string): Promise<void> {
    const extensions = this.options.extensions;
    return this.answers.take(
      runIds.filter((id) => this.mine.has(id)),
      (runId, requestId, answer) => {
        if (!extensions)
          throw new ApiError(
            404,
            "ui_request_not_found",
            `no UI request "${requestId}" in this run`,
          );
        extensions.answer(runId, requestId, answer);
      },
      onlyId,
    );
  }

  /** The backstop: expired leases, watched runs, queued runs, and retention. */
  private async tick(): Promise<void> {
    for (const dead of await this.ledger.takeExpired()) {
      const burial = buryRun(
        { ...this.options, ledger: this.ledger, report: this.options.report },
        dead,
      ).finally(() => this.burials.delete(burial));
      this.burials.add(burial);
    }
    await this.options.log.poll();
    this.kick();
    const now = Date.now();
    if (now - this.lastPrune > Math.min(60_000, this.options.eventRetentionMs)) {
      this.lastPrune = now;
      await this.options.log.prune(this.options.eventRetentionMs);
    }
  }
}
