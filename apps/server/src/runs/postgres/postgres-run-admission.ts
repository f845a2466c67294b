import type { AgentDefinition, AgentHostOptions, AgentNode, ImagePart } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import { runInProgress } from "../../errors/index.js";
import type { UiAnswer } from "../../extensions/ui-answer.js";
import type { RunAdmission, RunExecutor, RunSignal } from "../run-admission.js";
import type { RunRecord } from "../run-record.js";
import type { StartRunRequest } from "../run-request.js";
import { SessionHolds } from "../session-holds.js";
import { CHANNELS, type ClusterDb } from "./cluster-db.js";
import type { PostgresRunEventLog } from "./postgres-run-event-log.js";
import { buryRun } from "./run-burial.js";
import { type ClaimedRun, RunLedger } from "./run-ledger.js";
import { RunNotifier } from "./run-notifier.js";
import { UiAnswerRelay } from "./ui-answer-relay.js";

/** What a {@link PostgresRunAdmission} works with. */
export interface PostgresRunAdmissionOptions {
  db: ClusterDb;
  /** The cluster's run log: fenced by the generation of each claimed run, upkept here. */
  log: PostgresRunEventLog;
  /** Where the runs this instance claims go. */
  executor: RunExecutor;
  /** For the dedicated `LISTEN` connection. */
  connectionString: string;
  /** For the answer a dead instance was streaming, kept in its session. */
  store: SessionStore;
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  models: AgentHostOptions["models"];
  /** The backstop: how often watched runs, expired leases and queued runs are looked at. */
  pollMs: number;
  /** How long run events are kept after their run ended. */
  eventRetentionMs: number;
  /** The most runs this instance executes at once; more wait queued for any instance. */
  maxRunsPerInstance: number;
  /** Where failures of background work (heartbeat, polling) are reported. */
  report?: ((error: unknown) => void) | undefined;
}

/**
 * Admission for several instances sharing one PostgreSQL: the queue lives in the `runs`
 * table ({@link RunLedger}); any instance claims a run that may start and hands it to its
 * executor under a lease it renews; a run whose instance died is taken over by a survivor
 * after the lease expired and marked interrupted, never run again. Stop, abort and UI
 * answers reach the executing instance through `NOTIFY` (and the heartbeat, as a backstop).
 * Its `LISTEN` connection and backstop timer also keep the run log's watchers told.
 */
export class PostgresRunAdmission implements RunAdmission {
  private readonly ledger: RunLedger;
  private readonly notifier: RunNotifier;
  private readonly answers: UiAnswerRelay;
  private readonly holds = new SessionHolds();
  /** The runs this instance holds the lease of (claimed, not ended yet). */
  private readonly mine = new Set<string>();
  private readonly timers: NodeJS.Timeout[] = [];
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private closed = false;
  private lastPrune = 0;
  /** Runs of dead instances being ended here. */
  private readonly burials = new Set<Promise<void>>();

  private constructor(private readonly options: PostgresRunAdmissionOptions) {
    const { log, executor } = options;
    this.ledger = new RunLedger(options.db);
    this.answers = new UiAnswerRelay(options.db, 5_000);
    this.notifier = new RunNotifier({
      connectionString: options.connectionString,
      handlers: {
        [CHANNELS.runEvents]: (payload) => log.announce(payload.split(":")[0] ?? ""),
        [CHANNELS.runControl]: (payload) => {
          const [runId, what, answerId] = payload.split(":");
          if (runId && (what === "stop" || what === "abort")) executor.signal(runId, what);
          if (runId && what === "answer" && this.mine.has(runId))
            this.takeAnswers([runId], answerId).catch((error) => options.report?.(error));
        },
        [CHANNELS.runsQueued]: () => this.kick(),
      },
      onReconnect: () => {
        log.announceAll();
        this.kick();
      },
    });
  }

  /** Listens, starts the heartbeat and the backstop, and claims what waits. */
  static async start(options: PostgresRunAdmissionOptions): Promise<PostgresRunAdmission> {
    const admission = new PostgresRunAdmission(options);
    await admission.notifier.start();
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
      admission.timers.push(timer);
    };
    every(Math.max(50, Math.floor(options.db.leaseTtlMs / 3)), () => admission.beat());
    every(options.pollMs, () => admission.tick());
    admission.kick();
    return admission;
  }

  /** {@inheritDoc RunAdmission.admit} */
  async admit(record: RunRecord, request: StartRunRequest): Promise<RunRecord> {
    const { record: stored, claimed } = await this.ledger.admit({
      record,
      request: {
        prompt: request.prompt,
        ...(request.images ? { images: request.images } : {}),
        ...(request.command ? { command: request.command } : {}),
        ...(request.ancestry ? { ancestry: request.ancestry } : {}),
        ...(request.fromEntry !== undefined ? { fromEntry: request.fromEntry } : {}),
      },
      ifBusy: request.ifBusy,
      claimHere: this.hasRoom(),
    });
    if (claimed) this.execute(claimed);
    else this.kick();
    return stored;
  }

  /** {@inheritDoc RunAdmission.knows} */
  knows(_runId: string): boolean {
    // Queued runs wait in the table, for any instance.
    return false;
  }

  /** {@inheritDoc RunAdmission.orphan} */
  async orphan(record: RunRecord): Promise<RunRecord> {
    // Alive on another instance, or taken over by a survivor once its lease expires.
    return record;
  }

  /** {@inheritDoc RunAdmission.cancel} */
  cancel(runId: string, why: string): Promise<RunRecord | undefined> {
    return this.ledger.cancelQueued(runId, why);
  }

  /** {@inheritDoc RunAdmission.relay} */
  async relay(runId: string, what: RunSignal): Promise<boolean> {
    await this.ledger.requestControl(runId, what);
    return true;
  }

  /** {@inheritDoc RunAdmission.relayAnswer} */
  async relayAnswer(runId: string, requestId: string, answer: UiAnswer): Promise<boolean> {
    await this.answers.relay(runId, requestId, answer);
    return true;
  }

  /** {@inheritDoc RunAdmission.activeRunOf} */
  activeRunOf(sessionId: string, tenantId: string): Promise<string | undefined> {
    return this.ledger.activeRunOf(sessionId, tenantId);
  }

  /** {@inheritDoc RunAdmission.holding} */
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
    return this.holds.hold(sessionId, what, work);
  }

  /** Claims nothing more: queued runs stay in the table for the other instances. */
  async quiesce(): Promise<void> {
    this.closed = true;
    await this.claiming;
  }

  /** {@inheritDoc RunAdmission.close} */
  async close(): Promise<void> {
    this.closed = true;
    await this.claiming;
    await Promise.all([...this.burials]);
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    await this.notifier.close();
  }

  private hasRoom(): boolean {
    return !this.closed && this.options.executor.executing < this.options.maxRunsPerInstance;
  }

  /** Claims runs that may start, as long as this instance has room; one loop at a time. */
  private kick(): void {
    if (this.closed) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    // Cleared in a later turn than it is set, even when the loop finds no room and never
    // awaits: a loop cleared before it was stored would block every later claim.
    this.claiming = this.claimWhileRoom().finally(() => {
      this.claiming = undefined;
    });
  }

  private async claimWhileRoom(): Promise<void> {
    try {
      do {
        this.claimAgain = false;
        while (this.hasRoom()) {
          const claimed = await this.ledger.claim();
          if (!claimed) break;
          this.execute(claimed);
        }
      } while (this.claimAgain && !this.closed);
    } catch (error) {
      this.options.report?.(error);
    }
  }

  /** Hands a claimed run to the executor; its lease is given up once it ended. */
  private execute({ record, request, generation }: ClaimedRun): void {
    const { log, executor } = this.options;
    log.hold(record.id, generation);
    this.mine.add(record.id);
    executor
      .execute({
        record,
        request: {
          tenantId: record.tenantId,
          sessionId: record.sessionId,
          agent: record.agent,
          prompt: request.prompt,
          ...(request.images ? { images: request.images as ImagePart[] } : {}),
          ...(request.command ? { command: request.command } : {}),
          ...(request.ancestry ? { ancestry: request.ancestry } : {}),
          ...(request.fromEntry !== undefined ? { fromEntry: request.fromEntry } : {}),
          ifBusy: "reject",
        },
      })
      .catch(() => undefined)
      .finally(() => {
        this.mine.delete(record.id);
        log.release(record.id);
        this.kick();
      });
  }

  /** Renews the leases; a run no longer ours is aborted here, asked controls are applied. */
  private async beat(): Promise<void> {
    const { executor } = this.options;
    // Runs claimed before the renewal was sent: one of them missing from the answer lost its
    // lease (this instance stalled or lost the database past the TTL and a survivor marked it
    // interrupted). It is stopped here; its writes are already refused by the generation fence.
    const before = [...this.mine];
    const { held } = await this.ledger
      .heartbeat(this.notifier)
      .catch(() => this.ledger.heartbeat());
    for (const runId of before) {
      if (!held.has(runId) && this.mine.has(runId)) executor.signal(runId, "abort");
    }
    for (const [runId, control] of held) {
      if (control === "stop" || control === "abort") executor.signal(runId, control);
    }
    // The backstop of relayed answers whose notification was lost.
    await this.takeAnswers([...held.keys()]);
  }

  /** Delivers the relayed answers of runs executing here to the executor. */
  private takeAnswers(runIds: string[], onlyId?: string): Promise<void> {
    return this.answers.take(
      runIds.filter((id) => this.mine.has(id)),
      (runId, requestId, answer) => this.options.executor.answer(runId, requestId, answer),
      onlyId,
    );
  }

  /** The backstop: expired leases, watched runs, queued runs, and retention. */
  private async tick(): Promise<void> {
    for (const dead of await this.ledger.takeExpired()) {
      const burial = buryRun({ ...this.options, ledger: this.ledger }, dead).finally(() =>
        this.burials.delete(burial),
      );
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
