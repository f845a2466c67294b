import { describe, expect, it } from "vitest";
import { addTool, drain, memorySession, recordingSleep, scripted } from "../test/factories.js";
import { recordingProvider } from "../test/recording-tracer.js";
import { AgentSession } from "./agent-session.js";

describe("OpenTelemetry spans", () => {
  it("records prompt, turn, model-call and tool-call spans in their hierarchy", async () => {
    const session = await memorySession();
    const { spans, tracerProvider } = recordingProvider();
    const { sleep } = recordingSleep();
    const model = scripted("alpha", [
      { error: { kind: "timeout" } },
      { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 2 } }] },
      "3",
    ]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [addTool],
      sleep,
      telemetry: { tracerProvider },
    });

    const { result } = await drain(agent.prompt("Add"));

    expect(result.success).toBe(true);
    const tree = spans.map((span) => [span.name, span.parent?.name ?? null]);
    expect(tree).toEqual([
      ["arbor.prompt", null],
      ["arbor.turn", "arbor.prompt"],
      ["chat alpha-model", "arbor.turn"],
      ["chat alpha-model", "arbor.turn"],
      ["execute_tool add", "arbor.turn"],
      ["arbor.turn", "arbor.prompt"],
      ["chat alpha-model", "arbor.turn"],
    ]);
    expect(spans.every((span) => span.ended)).toBe(true);
    const [prompt, firstTurn, failed, served, tool] = spans;
    expect(prompt?.attributes).toMatchObject({
      "arbor.session.id": session.id,
      "arbor.result.success": true,
      "arbor.result.turns": 2,
      "gen_ai.usage.input_tokens": result.usage.input,
    });
    expect(firstTurn?.events).toEqual(["retry"]);
    expect(failed?.status.code).toBe(2);
    expect(failed?.attributes).toMatchObject({
      "error.type": "timeout",
      "arbor.attempt.outcome": "error",
    });
    expect(served?.attributes).toMatchObject({
      "gen_ai.provider.name": "alpha",
      "gen_ai.request.model": "alpha-model",
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.output_tokens": 5,
    });
    expect(tool?.attributes).toMatchObject({
      "gen_ai.tool.name": "add",
      "gen_ai.tool.call.id": "c1",
    });
    expect(tool?.status.code).toBe(0);
  });

  it("marks a failed run's prompt span as an error and ends every span", async () => {
    const session = await memorySession();
    const { spans, tracerProvider } = recordingProvider();
    const model = scripted("alpha", [
      { blocks: [{ type: "text", text: "one two three" }], chunkSize: 4, delayMs: 5 },
    ]);
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      telemetry: { tracerProvider },
    });
    const run = agent.prompt("Count");
    for await (const event of run.events) if (event.type === "text_delta") agent.abort();
    await run.result;
    expect(spans.every((span) => span.ended)).toBe(true);
    expect(spans[0]?.status.code).toBe(2);
    expect(spans[0]?.attributes["arbor.result.reason"]).toBe("aborted");
  });

  it("records nothing when disabled, and runs unchanged without a registered SDK", async () => {
    const session = await memorySession();
    const { spans, tracerProvider } = recordingProvider();
    const off = new AgentSession({
      targets: [{ model: scripted("alpha", ["hi"]) }],
      session,
      telemetry: { enabled: false, tracerProvider },
    });
    expect((await drain(off.prompt("Hi"))).result.success).toBe(true);
    expect(spans).toEqual([]);
    const global = new AgentSession({ targets: [{ model: scripted("alpha", ["hi"]) }], session });
    expect((await drain(global.prompt("Hi"))).result.success).toBe(true);
  });
});
