import type * as Otel from "@opentelemetry/api";
import { loadOtel, type TelemetryOptions, TRACER_NAME } from "./run-trace.js";

type Attributes = Record<string, string | number | boolean | string[]>;

/** A span opened by a layer above the turn runner, and the context its children start in. */
export interface TraceSpanScope {
  /**
   * The OpenTelemetry `Context` holding the span: pass it as `telemetry.parentContext` to the
   * runs (or spans) that belong below it. Undefined when nothing is recorded.
   */
  readonly context: unknown;
  /** Ends the span once, with an error type (the span's status becomes an error) and attributes. */
  end(outcome?: { error?: string; attributes?: Attributes }): void;
}

const NOTHING: TraceSpanScope = { context: undefined, end: () => undefined };

/**
 * Opens a span with the turn runner's telemetry options (the same tracer provider, the same
 * switch), below `telemetry.parentContext` or the active context. An orchestration uses it for
 * its own spans, so its child runs nest: orchestration → child → `arbor.prompt` → turn → …
 * Without `@opentelemetry/api`, or with telemetry off, nothing is recorded.
 * @example
 * const span = await openTraceSpan(telemetry, "arbor.orchestration", { "arbor.agent.path": "main" });
 * // … run agents with { telemetry: { ...telemetry, parentContext: span.context } }
 * span.end();
 */
export async function openTraceSpan(
  telemetry: TelemetryOptions | undefined,
  name: string,
  attributes: Attributes,
): Promise<TraceSpanScope> {
  if (telemetry?.enabled === false) return NOTHING;
  const api = await loadOtel();
  if (!api) return NOTHING;
  const provider = telemetry?.tracerProvider ?? api.trace.getTracerProvider();
  const tracer = provider.getTracer(TRACER_NAME) as Otel.Tracer;
  const parent = (telemetry?.parentContext as Otel.Context | undefined) ?? api.context.active();
  const span = tracer.startSpan(name, { attributes }, parent);
  let open = true;
  return {
    context: api.trace.setSpan(parent, span),
    end: (outcome = {}) => {
      if (!open) return;
      open = false;
      if (outcome.attributes) span.setAttributes(outcome.attributes);
      if (outcome.error !== undefined) {
        span.setAttribute("error.type", outcome.error);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: outcome.error });
      }
      span.end();
    },
  };
}
