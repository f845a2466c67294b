import { describe, expect, it } from "vitest";
import { drain, memorySession, scripted } from "../test/factories.js";
import { recordingProvider } from "../test/recording-tracer.js";
import { AgentSession } from "./agent-session.js";
import { openTraceSpan } from "./trace-span.js";

describe("openTraceSpan", () => {
  it("opens a span a run nests below through telemetry.parentContext", async () => {
    const { spans, tracerProvider } = recordingProvider();
    const outer = await openTraceSpan({ tracerProvider }, "arbor.orchestration", {
      "arbor.agent.path": "main",
    });
    const child = await openTraceSpan(
      { tracerProvider, parentContext: outer.context },
      "arbor.child",
      { "arbor.agent.path": "main:helper" },
    );
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", ["done"]) }],
      session: await memorySession(),
      telemetry: { tracerProvider, parentContext: child.context },
    });
    const { result } = await drain(agent.prompt("Go"));
    child.end({ attributes: { "arbor.child.outcome": "succeeded" } });
    outer.end({ error: "max_turns" });
    outer.end();

    expect(result.success).toBe(true);
    expect(spans.map((span) => [span.name, span.parent?.name ?? null])).toEqual([
      ["arbor.orchestration", null],
      ["arbor.child", "arbor.orchestration"],
      ["arbor.prompt", "arbor.child"],
      ["arbor.turn", "arbor.prompt"],
      ["chat alpha-model", "arbor.turn"],
    ]);
    expect(spans.every((span) => span.ended)).toBe(true);
    expect(spans[1]?.attributes).toMatchObject({
      "arbor.agent.path": "main:helper",
      "arbor.child.outcome": "succeeded",
    });
    expect(spans[0]?.status.code).toBe(2);
    expect(spans[0]?.attributes["error.type"]).toBe("max_turns");
  });

  it("records nothing with telemetry off, and a run refuses a parentContext that is not an object", async () => {
    const { spans, tracerProvider } = recordingProvider();
    const off = await openTraceSpan({ tracerProvider, enabled: false }, "arbor.child", {});
    off.end();
    expect(off.context).toBeUndefined();
    expect(spans).toEqual([]);
    const session = await memorySession();
    expect(
      () =>
        new AgentSession({
          targets: [{ model: scripted("alpha", ["done"]) }],
          session,
          telemetry: { parentContext: "ctx" },
        }),
    ).toThrow(/telemetry\.parentContext/);
  });
});
