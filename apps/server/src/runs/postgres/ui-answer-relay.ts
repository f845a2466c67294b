import { ApiError } from "../../errors/index.js";
import type { UiAnswer } from "../../extensions/ui-answer.js";
import { CHANNELS, type ClusterDb } from "./cluster-db.js";
import { dbJson } from "./db-json.js";

/** What the executing instance made of a relayed answer: the error a client sees, or none. */
interface Outcome {
  status: number;
  code?: string;
  message?: string;
}

/**
 * Carries answers to extension UI requests from the instance that received them to the one
 * executing the run: the answer is a row (an answer can be longer than a NOTIFY payload),
 * the notification carries its id, and the receiving instance waits (bounded) for the
 * outcome the executing one writes back, so the client gets the same 204, 400, 404 or 409
 * as on a single instance.
 */
export class UiAnswerRelay {
  constructor(
    private readonly db: ClusterDb,
    private readonly waitMs: number,
  ) {}

  /**
   * Relays an answer and waits for its outcome.
   * @throws ApiError as the executing instance decided, or 503 when it did not answer in time
   */
  async relay(runId: string, requestId: string, answer: UiAnswer): Promise<void> {
    const s = this.db.schema;
    const { rows } = await this.db.pool.query<{ id: string }>(
      `WITH added AS (INSERT INTO ${s}.run_ui_answers (run_id, request_id, answer)
         VALUES ($1, $2, $3) RETURNING id)
       SELECT id, pg_notify('${CHANNELS.runControl}', $1 || ':answer:' || id) FROM added`,
      [runId, requestId, dbJson(answer)],
    );
    const id = rows[0]?.id as string;
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const { rows: done } = await this.db.pool.query<{ outcome: Outcome | null }>(
        `SELECT outcome FROM ${s}.run_ui_answers WHERE id = $1`,
        [id],
      );
      const outcome = done[0]?.outcome;
      if (outcome) {
        if (outcome.status < 300) return;
        throw new ApiError(
          outcome.status as 400,
          outcome.code ?? "invalid_request",
          outcome.message ?? "the answer was refused",
        );
      }
      if (Date.now() > deadline) {
        throw new ApiError(
          503,
          "run_unreachable",
          `the instance running "${runId}" did not take the answer in ${this.waitMs} ms; send it again`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Takes the answers waiting for runs this instance executes: `apply` delivers each one
   * locally; its outcome (or the error it threw) is written back for the relaying instance.
   */
  async take(
    runIds: readonly string[],
    apply: (runId: string, requestId: string, answer: UiAnswer) => void,
    onlyId?: string,
  ): Promise<void> {
    if (runIds.length === 0) return;
    const s = this.db.schema;
    const { rows } = await this.db.pool.query<{
      id: string;
      run_id: string;
      request_id: string;
      answer: UiAnswer;
    }>(
      `SELECT id, run_id, request_id, answer FROM ${s}.run_ui_answers
       WHERE outcome IS NULL AND run_id = ANY($1) AND ($2::bigint IS NULL OR id = $2)
       ORDER BY id`,
      [runIds, onlyId ?? null],
    );
    for (const row of rows) {
      let outcome: Outcome = { status: 204 };
      try {
        apply(row.run_id, row.request_id, row.answer);
      } catch (error) {
        outcome = ApiError.isInstance(error)
          ? { status: error.status, code: error.code, message: error.message }
          : { status: 500, code: "internal_error", message: "the answer could not be delivered" };
      }
      await this.db.pool.query(
        `UPDATE ${s}.run_ui_answers SET outcome = $2 WHERE id = $1 AND outcome IS NULL`,
        [row.id, dbJson(outcome)],
      );
    }
  }
}
