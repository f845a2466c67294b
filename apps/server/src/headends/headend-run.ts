import type { AppDeps } from "../app-deps.js";
import { runEventStream } from "../runs/run-event-stream.js";
import type { RunRecord } from "../runs/run-record.js";
import type { ServerRunEvent } from "../runs/server-run-event.js";

/** An extension's question to the client, as the run streams it. */
export type UiRequestEvent = Extract<ServerRunEvent, { type: "ui_request" }>;

/** What a headend asks of a run: the agent, the tenant's session, the prompt, the entry to answer after. */
export interface HeadendRunRequest {
  tenantId: string;
  sessionId: string;
  agent: string;
  prompt: string;
  /** Answer after this entry (a new branch) instead of after the session's leaf. */
  fromEntry?: string;
}

/** A piece of what a run streams, as every headend shows it. */
export type AnswerPiece =
  | { kind: "text"; delta: string }
  | { kind: "reasoning"; delta: string }
  | { kind: "activity"; delta: string }
  | { kind: "ui_request"; request: UiRequestEvent };

/** How a run a headend started ended. */
export interface HeadendRunEnd {
  record: RunRecord;
  /** The answer's text: every text delta of the agents answering in the session. */
  text: string;
  /** The last entry the run stored in the session (the new leaf), if any. */
  leaf: string | undefined;
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** The run ended with an answer. */
  ok: boolean;
  /** Why it did not, when it did not. */
  failure?: { code: string; message: string };
}

/**
 * Starts a run the way the native API does (the same admission, log and limits); a busy
 * session is refused (409), never queued behind a run the client cannot see.
 */
export function startHeadendRun(deps: AppDeps, request: HeadendRunRequest): Promise<RunRecord> {
  return deps.runs.start({
    tenantId: request.tenantId,
    sessionId: request.sessionId,
    agent: request.agent,
    prompt: request.prompt,
    ifBusy: "reject",
    ...(request.fromEntry !== undefined ? { fromEntry: request.fromEntry } : {}),
  });
}

/**
 * Follows a run's events from the durable log (as `GET /v1/runs/{id}/events` does) and turns
 * them into {@link AnswerPiece}s, keeping what the end needs. One per run a headend follows.
 */
export class RunFollower {
  private text = "";
  private leaf: string | undefined;
  private readonly toolsSeen = new Set<string>();

  constructor(
    private readonly deps: AppDeps,
    readonly runId: string,
    readonly sessionId: string,
  ) {}

  /**
   * The run's pieces as they come, then its end. Ends early (without an end) when `signal`
   * aborts; leaving does not stop the run.
   */
  async *follow(
    signal: AbortSignal,
  ): AsyncGenerator<AnswerPiece | { kind: "end"; end: HeadendRunEnd }> {
    const items = runEventStream(this.deps.log, this.runId, 0, {
      keepAliveMs: this.deps.limits.keepAliveMs,
      signal,
    });
    for await (const item of items) {
      if (item.kind === "event") {
        const piece = this.take(item.event);
        if (piece) yield piece;
      } else if (item.kind === "end") {
        yield { kind: "end", end: this.endOf(item.record) };
      }
    }
  }

  /** Follows the run to its end, ignoring the pieces. */
  async result(signal: AbortSignal): Promise<HeadendRunEnd | undefined> {
    for await (const item of this.follow(signal)) if (item.kind === "end") return item.end;
    return undefined;
  }

  private take(event: ServerRunEvent): AnswerPiece | undefined {
    if (event.type === "ui_request") return { kind: "ui_request", request: event };
    // Sub-agents answer in sessions of their own: only the agents answering in this session speak.
    const ancestry = "ancestry" in event ? event.ancestry : undefined;
    if (!ancestry || ancestry.sessionId !== this.sessionId) return undefined;
    switch (event.type) {
      case "text_delta":
        this.text += event.delta;
        return { kind: "text", delta: event.delta };
      case "thinking_delta":
        return { kind: "reasoning", delta: event.delta };
      case "message_end":
        this.leaf = event.entryId;
        return undefined;
      case "toolcall_delta":
        if (this.toolsSeen.has(event.toolCallId)) return undefined;
        this.toolsSeen.add(event.toolCallId);
        return { kind: "activity", delta: `[tool ${event.toolName}]\n` };
      case "tool_result":
        this.leaf = event.entryId;
        return {
          kind: "activity",
          delta: `[tool ${event.toolName} ${event.isError ? "failed" : "done"}]\n`,
        };
      default:
        return undefined;
    }
  }

  private endOf(record: RunRecord): HeadendRunEnd {
    const result = record.result as
      | { success: boolean; usage?: HeadendRunEnd["usage"]; reason?: string; message?: string }
      | undefined;
    const usage = result?.usage ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    const ok = record.status === "completed" && result?.success !== false;
    const end: HeadendRunEnd = { record, text: this.text, leaf: this.leaf, usage, ok };
    if (!ok) {
      end.failure = record.error ?? {
        code: result?.reason ?? record.status,
        message: result?.message ?? `the run ended ${record.status}`,
      };
    }
    return end;
  }
}
