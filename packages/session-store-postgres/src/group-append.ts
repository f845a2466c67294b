import type pg from "pg";
import type { AppendFence } from "./append-statement.js";
import { type BatchRows, sessionFacts } from "./batch-rows.js";
import { isConnectionError } from "./errors.js";
import { inTenantScope } from "./tenant-scope.js";

/** `$1, …, $n`. */
function params(n: number): string {
  return Array.from({ length: n }, (_, i) => `$${i + 1}`).join(", ");
}

/** The call of the append function (migration 2), which does the work in one statement. */
function groupSql(schema: string): string {
  return `SELECT held_ids AS held FROM ${schema}.append_entries(${params(16)})`;
}

/** The call of the one-entry append function (migration 4). */
function oneSql(schema: string): string {
  return `SELECT held FROM ${schema}.append_entry(${params(15)})`;
}

/** One session's part of a group. */
interface Request {
  fence: AppendFence;
  rows: BatchRows;
  resolve: (held: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Requests per statement, at most. Smaller groups keep several statements running at once
 * (one server process each, so all cores work); with up to 256 per statement one process
 * did most of the work: 100 sessions appended 7,400/s against 9,100–9,600/s with 16 or 32.
 */
const MAX_GROUP = 32;

/**
 * Group commit across the sessions of one store: appends that arrive while statements are
 * out go together in the next one, so a hundred sessions appending at once share round
 * trips and commits. A session has at most one request here at a time (its storage waits
 * for each), so the order of its appends is its storage's order.
 */
export class GroupAppender {
  private queue: Request[] = [];
  private inFlight = 0;
  private kickScheduled = false;
  private readonly sql: string;
  private readonly oneSql: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly leaseTtlMs: number,
    private readonly rowLevelSecurity = false,
    private readonly parallel = 4,
  ) {
    this.sql = groupSql(schema);
    this.oneSql = oneSql(schema);
  }

  /**
   * Appends one session's rows with others'.
   * @returns false when the session's lease was not current (nothing written)
   */
  submit(fence: AppendFence, rows: BatchRows): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ fence, rows, resolve, reject });
      // A lone append goes at once; with statements out, appends gather until the sessions
      // just answered have queued their next ones, so groups stay large.
      if (this.inFlight === 0) this.kick();
      else this.kickSoon();
    });
  }

  private kickSoon(): void {
    if (this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      this.kick();
    });
  }

  private kick(): void {
    while (this.inFlight < this.parallel && this.queue.length > 0) {
      const group = this.nextGroup();
      this.inFlight++;
      void this.send(group);
    }
  }

  /** The next requests to send together: any, or under row-level security one tenant's. */
  private nextGroup(): Request[] {
    if (!this.rowLevelSecurity) return this.queue.splice(0, MAX_GROUP);
    const tenant = this.queue[0]?.fence.tenant;
    const group: Request[] = [];
    const rest: Request[] = [];
    for (const request of this.queue) {
      if (request.fence.tenant === tenant && group.length < MAX_GROUP) group.push(request);
      else rest.push(request);
    }
    this.queue = rest;
    return group;
  }

  private async send(group: Request[]): Promise<void> {
    let held: Set<string> | undefined;
    let failure: unknown;
    try {
      held = await this.run(group);
    } catch (error) {
      failure = error;
    }
    // The slot is free before anyone hears back, so a lone session's next append goes at once.
    this.inFlight--;
    if (this.queue.length > 0) this.kickSoon();
    if (held) {
      for (const request of group) request.resolve(held.has(request.fence.sessionId));
      return;
    }
    if (group.length === 1 || isConnectionError(failure)) {
      for (const request of group) request.reject(failure);
      return;
    }
    // A statement error (a colliding entry id) belongs to one session: find whose.
    for (const request of group) {
      try {
        request.resolve((await this.run([request])).has(request.fence.sessionId));
      } catch (own) {
        request.reject(own);
      }
    }
  }

  private async run(group: Request[]): Promise<Set<string>> {
    const only = group.length === 1 ? group[0] : undefined;
    if (only && only.rows.entryIds.length === 1) {
      return (await this.runOne(only)) ? new Set([only.fence.sessionId]) : new Set();
    }
    const cols: unknown[][] = Array.from({ length: 15 }, () => []);
    for (const { fence, rows } of group) {
      for (let i = 0; i < rows.entryIds.length; i++) {
        cols[0]?.push(fence.sessionId);
        cols[1]?.push(rows.entryIds[i]);
        cols[2]?.push(rows.parentIds[i]);
        cols[3]?.push(rows.types[i]);
        cols[4]?.push(rows.opIds[i]);
        cols[5]?.push(rows.entries[i]);
      }
      cols[6]?.push(fence.sessionId);
      cols[7]?.push(fence.token);
      cols[8]?.push(fence.holder);
      for (const [i, fact] of sessionFacts(rows).entries()) cols[9 + i]?.push(fact);
    }
    const tenant = group[0]?.fence.tenant ?? "";
    const result = await inTenantScope(this.pool, this.rowLevelSecurity, tenant, (db) =>
      db.query<{ held: string[] }>({
        name: `arbor-group-append-${this.schema}`,
        text: this.sql,
        values: [...cols, this.leaseTtlMs],
      }),
    );
    return new Set(result.rows[0]?.held ?? []);
  }

  /** One entry of one session: scalar parameters, the function of migration 4. */
  private async runOne({ fence, rows }: Request): Promise<boolean> {
    const result = await inTenantScope(this.pool, this.rowLevelSecurity, fence.tenant, (db) =>
      db.query<{ held: boolean }>({
        name: `arbor-append-one-${this.schema}`,
        text: this.oneSql,
        values: [
          fence.sessionId,
          rows.entryIds[0],
          rows.parentIds[0],
          rows.types[0],
          rows.opIds[0],
          rows.entries[0],
          fence.token,
          fence.holder,
          ...sessionFacts(rows),
          this.leaseTtlMs,
        ],
      }),
    );
    return result.rows[0]?.held === true;
  }
}
