import {
  type Attributes,
  type Context,
  context,
  type Span,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  trace,
} from "@opentelemetry/api";

/** A span that remembers what happened to it. */
export class RecordedSpan implements Span {
  readonly attributes: Attributes;
  readonly events: string[] = [];
  status: SpanStatus = { code: 0 };
  ended = false;
  private readonly ids: SpanContext;

  constructor(
    readonly name: string,
    attributes: Attributes | undefined,
    readonly parent: RecordedSpan | undefined,
    index: number,
  ) {
    this.attributes = { ...attributes };
    this.ids = {
      traceId: "1".repeat(32),
      spanId: index.toString(16).padStart(16, "0"),
      traceFlags: 1,
    };
  }
  spanContext(): SpanContext {
    return this.ids;
  }
  setAttribute(key: string, value: Attributes[string]): this {
    this.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.attributes, attributes);
    return this;
  }
  addEvent(name: string): this {
    this.events.push(name);
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.status = status;
    return this;
  }
  updateName(): this {
    return this;
  }
  end(): void {
    if (this.ended) throw new Error(`span ${this.name} ended twice`);
    this.ended = true;
  }
  isRecording(): boolean {
    return !this.ended;
  }
  recordException(): void {}
}

/** A tracer provider keeping every span, with its parent taken from the given context. */
export function recordingProvider() {
  const spans: RecordedSpan[] = [];
  const tracer = {
    startSpan(name: string, options?: SpanOptions, ctx?: Context): Span {
      const parent = trace.getSpan(ctx ?? context.active()) as RecordedSpan | undefined;
      const span = new RecordedSpan(name, options?.attributes, parent, spans.length + 1);
      spans.push(span);
      return span;
    },
    startActiveSpan(): never {
      throw new Error("not used by the agent");
    },
  } as Tracer;
  return { spans, tracerProvider: { getTracer: () => tracer } };
}
