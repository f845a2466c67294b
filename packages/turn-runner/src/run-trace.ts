import type * as Otel from "@opentelemetry/api";
import type { AgentEvent, RunAncestry } from "./contracts/index.js";
import type { ModelTarget } from "./target-pool.js";

type OtelApi = typeof Otel;
type Attributes = Record<string, string | number | boolean | string[]>;

/** Something that hands out tracers: an OpenTelemetry `TracerProvider`. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** Options of the agent's OpenTelemetry spans. */
export interface TelemetryOptions {
  /**
   * Set false to create no spans. By default spans go to the globally registered
   * OpenTelemetry SDK through `@opentelemetry/api` (an optional peer dependency); without
   * the package, or without a registered SDK, nothing is recorded.
   */
  enabled?: boolean;
  /** Where the spans go instead of the global tracer provider. */
  tracerProvider?: TracerProviderLike;
  /**
   * The OpenTelemetry `Context` the run's `arbor.prompt` span starts in (an orchestration
   * passes its child span's, so a child run nests below it); default the active context.
   */
  parentContext?: unknown;
}

/** A span in progress, ended once by whoever started it. */
export interface OpenSpan {
  end(outcome?: { error?: string; attributes?: Attributes }): void;
}

const NO_SPAN: OpenSpan = { end: () => undefined };
/** The name of the tracer every Arbor span comes from. */
export const TRACER_NAME = "@arbor/turn-runner";

let loading: Promise<OtelApi | undefined> | undefined;

/**
 * The ancestry attributes every span of a run carries: `arbor.run.id`, `arbor.session.id`,
 * `arbor.origin.id`, `arbor.parent.id` (only for a run with a parent) and `arbor.agent.path`.
 */
export function ancestryAttributes(ancestry: RunAncestry): Attributes {
  return {
    "arbor.run.id": ancestry.runId,
    "arbor.session.id": ancestry.sessionId,
    "arbor.origin.id": ancestry.originId,
    ...(ancestry.parentId !== undefined ? { "arbor.parent.id": ancestry.parentId } : {}),
    "arbor.agent.path": ancestry.agentPath,
  };
}

/** Loads `@opentelemetry/api` once; undefined when it is not installed. */
export function loadOtel(): Promise<OtelApi | undefined> {
  loading ??= import("@opentelemetry/api").then(
    (api) => api,
    () => undefined,
  );
  return loading;
}

/**
 * The spans of one prompt: `arbor.prompt`, one `arbor.turn` per turn below it, and below
 * each turn a `chat <model>` span per model attempt and an `execute_tool <name>` span per
 * tool call. Retries, rejected answers, stream-rule interrupts, context-guard actions and
 * forced final turns are events on the turn's span. Every span carries the run's ancestry
 * ({@link ancestryAttributes}).
 */
export class RunTrace {
  private api: OtelApi | undefined;
  private tracer: Otel.Tracer | undefined;
  private promptSpan: Otel.Span | undefined;
  private turnSpan: Otel.Span | undefined;
  private readonly open = new Set<Otel.Span>();
  private readonly ancestry: Attributes;

  /**
   * @param ancestry - the run's ancestry, set on every span
   * @param options - whether and where spans are recorded
   */
  constructor(
    ancestry: RunAncestry,
    private readonly options: TelemetryOptions = {},
  ) {
    this.ancestry = ancestryAttributes(ancestry);
  }

  /** Starts the prompt's span (a child of the caller's active span, if any). */
  async begin(attributes: Attributes): Promise<void> {
    if (this.options.enabled === false) return;
    const api = await loadOtel();
    if (!api) return;
    this.api = api;
    const provider = this.options.tracerProvider ?? api.trace.getTracerProvider();
    this.tracer = provider.getTracer(TRACER_NAME) as Otel.Tracer;
    this.promptSpan = this.start("arbor.prompt", attributes, undefined);
  }

  /** Follows the run's events: turn spans open and close, notable events are recorded. */
  observe(event: AgentEvent): void {
    if (!this.tracer) return;
    switch (event.type) {
      case "turn_start":
        this.endSpan(this.turnSpan);
        this.turnSpan = this.start(
          "arbor.turn",
          { "arbor.turn.index": event.turnIndex },
          this.promptSpan,
        );
        break;
      case "turn_end":
        this.endSpan(this.turnSpan);
        this.turnSpan = undefined;
        break;
      case "retry":
        this.turnSpan?.addEvent("retry", {
          "error.type": event.kind,
          "arbor.failover.action": event.action,
          "arbor.retry.delay_ms": event.delayMs,
        });
        break;
      case "ttsr_triggered":
        this.turnSpan?.addEvent("ttsr_triggered", {
          "arbor.ttsr.rules": event.rules.map((rule) => rule.name),
        });
        break;
      case "answer_rejected":
        this.turnSpan?.addEvent("answer_rejected", { "arbor.answer.problems": event.problems });
        break;
      case "context_guard":
        this.turnSpan?.addEvent("context_guard", {
          "arbor.context_guard.action": event.action,
          "arbor.context_guard.estimate": event.estimate,
          "arbor.context_guard.limit": event.limit,
        });
        break;
      case "final_turn":
        this.turnSpan?.addEvent("final_turn", { "arbor.final_turn.reason": event.reason });
        break;
      case "agent_end": {
        const { result } = event;
        this.promptSpan?.setAttributes({
          "arbor.result.success": result.success,
          "arbor.result.turns": result.turns,
          "arbor.final_report.status": result.finalReport.status,
          "gen_ai.usage.input_tokens": result.usage.input,
          "gen_ai.usage.output_tokens": result.usage.output,
          "arbor.cost_usd": result.cost,
          "arbor.context_guard.over_limit_requests": result.overLimitRequests ?? 0,
          ...(result.reason ? { "arbor.result.reason": result.reason } : {}),
        });
        if (!result.success) this.fail(this.promptSpan, result.reason ?? "failed");
        this.close();
        break;
      }
      default:
        break;
    }
  }

  /** Starts the span of one model attempt, below the current turn. */
  startAttempt(turnIndex: number, target: ModelTarget): OpenSpan {
    const { info } = target.model;
    return this.child(`chat ${info.id}`, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": info.provider,
      "gen_ai.request.model": info.id,
      "arbor.turn.index": turnIndex,
    });
  }

  /** Starts the span of one tool call, below the current turn. */
  startTool(call: { id: string; name: string }): OpenSpan {
    return this.child(`execute_tool ${call.name}`, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.name,
      "gen_ai.tool.call.id": call.id,
    });
  }

  /** Ends every span still open (the run is over, however it ended). */
  close(): void {
    for (const span of [...this.open]) this.endSpan(span);
    this.turnSpan = undefined;
    this.promptSpan = undefined;
  }

  private child(name: string, attributes: Attributes): OpenSpan {
    if (!this.tracer) return NO_SPAN;
    const span = this.start(name, attributes, this.turnSpan ?? this.promptSpan);
    return {
      end: (outcome = {}) => {
        if (!this.open.has(span)) return;
        if (outcome.attributes) span.setAttributes(outcome.attributes);
        if (outcome.error !== undefined) this.fail(span, outcome.error);
        this.endSpan(span);
      },
    };
  }

  private start(name: string, attributes: Attributes, parent: Otel.Span | undefined): Otel.Span {
    const api = this.api as OtelApi;
    const base = (this.options.parentContext as Otel.Context | undefined) ?? api.context.active();
    const context = parent ? api.trace.setSpan(base, parent) : base;
    const span = (this.tracer as Otel.Tracer).startSpan(
      name,
      { attributes: { ...this.ancestry, ...attributes } },
      context,
    );
    this.open.add(span);
    return span;
  }

  private fail(span: Otel.Span | undefined, errorType: string): void {
    if (!span || !this.api) return;
    span.setAttribute("error.type", errorType);
    span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: errorType });
  }

  private endSpan(span: Otel.Span | undefined): void {
    if (!span || !this.open.delete(span)) return;
    span.end();
  }
}
