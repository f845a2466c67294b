import { type Context, context, type Span, type SpanOptions, trace } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { scriptedModels } from "../../test/orchestration-fixtures.js";
import { defineAgent } from "../definition/index.js";
import { runAgent } from "../host/run-agent.js";
import type { AgentNode } from "./agent-tree.js";

interface RecordedSpan {
  name: string;
  parent: RecordedSpan | undefined;
  attributes: Record<string, unknown>;
  status: number;
  ended: boolean;
}

/** A tracer provider keeping each span with the parent found in its start context. */
function recordingProvider() {
  const spans: RecordedSpan[] = [];
  const spanOf = new WeakMap<Span, RecordedSpan>();
  const tracer = {
    startSpan(name: string, options?: SpanOptions, ctx?: Context): Span {
      const parentSpan = trace.getSpan(ctx ?? context.active());
      const recorded: RecordedSpan = {
        name,
        parent: parentSpan ? spanOf.get(parentSpan) : undefined,
        attributes: { ...options?.attributes },
        status: 0,
        ended: false,
      };
      spans.push(recorded);
      const span = {
        spanContext: () => ({ traceId: "1".repeat(32), spanId: "2".repeat(16), traceFlags: 1 }),
        setAttribute: (key: string, value: unknown) => {
          recorded.attributes[key] = value;
          return span;
        },
        setAttributes: (attributes: Record<string, unknown>) => {
          Object.assign(recorded.attributes, attributes);
          return span;
        },
        addEvent: () => span,
        addLink: () => span,
        addLinks: () => span,
        setStatus: (status: { code: number }) => {
          recorded.status = status.code;
          return span;
        },
        updateName: () => span,
        end: () => {
          recorded.ended = true;
        },
        isRecording: () => !recorded.ended,
        recordException: () => undefined,
      } as unknown as Span;
      spanOf.set(span, recorded);
      return span;
    },
  };
  return { spans, tracerProvider: { getTracer: () => tracer } };
}

function node(name: string, agents: AgentNode[] = []): AgentNode {
  return {
    definition: defineAgent({ name, models: [`scripted/${name}`] }),
    file: "<inline>",
    advisors: [],
    destinations: [],
    handoff: undefined,
    agents,
  };
}

const call = (name: string, args: Record<string, unknown>) => ({
  blocks: [{ type: "toolCall" as const, id: `c_${name}`, name, arguments: args }],
});

describe("orchestration spans", () => {
  it("nest: orchestration → child → the child's prompt → turn → model call", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "look" }), "Done."],
      helper: [call("agent__reader", { prompt: "read" }), "Helped."],
      reader: ["Read."],
    });
    const { spans, tracerProvider } = recordingProvider();
    const result = await runAgent(node("main", [node("helper", [node("reader")])]), "Go", {
      store,
      models,
      agentOptions: { telemetry: { tracerProvider } },
    }).result;
    expect(result.success).toBe(true);

    const path = (span: RecordedSpan | undefined): string =>
      span ? `${path(span.parent)}/${span.name}`.replace(/^\//, "") : "";
    const paths = spans.map((span) => path(span));
    expect(paths).toContain("arbor.orchestration/arbor.prompt/arbor.turn/chat scripted");
    expect(paths).toContain(
      "arbor.orchestration/arbor.child/arbor.prompt/arbor.turn/chat scripted",
    );
    expect(paths).toContain(
      "arbor.orchestration/arbor.child/arbor.child/arbor.prompt/arbor.turn/chat scripted",
    );
    const children = spans.filter((span) => span.name === "arbor.child");
    expect(children.map((span) => span.attributes["arbor.agent.path"])).toEqual([
      "main:helper",
      "main:helper:reader",
    ]);
    expect(children.map((span) => span.attributes["arbor.child.outcome"])).toEqual([
      "succeeded",
      "succeeded",
    ]);
    expect(spans[0]?.attributes).toMatchObject({ "arbor.final_agent": "main" });
    expect(spans.every((span) => span.ended)).toBe(true);
  });

  it("marks a failed child's span as an error", async () => {
    const { models, store } = scriptedModels({
      main: [call("agent__helper", { prompt: "look" }), "Done without it."],
      helper: [{ error: { kind: "auth_error", message: "bad key" } }],
    });
    const { spans, tracerProvider } = recordingProvider();
    await runAgent(node("main", [node("helper")]), "Go", {
      store,
      models,
      agentOptions: { telemetry: { tracerProvider }, retryDelayMs: 0 },
    }).result;
    const child = spans.find((span) => span.name === "arbor.child");
    expect(child?.attributes["arbor.child.outcome"]).toBe("failed");
    expect(child?.status).toBe(2);
  });
});
