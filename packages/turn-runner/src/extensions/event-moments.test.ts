import type { MessageEndEvent, MessageUpdateEvent } from "@arbor/extensions-api";
import { describe, expect, it } from "vitest";
import {
  agentWithExtensions,
  recorder,
  type SeenEvent,
  timeline,
} from "../../test/extension-fixtures.js";
import { addTool, drain, shape } from "../../test/factories.js";

const addCall = {
  blocks: [{ type: "toolCall" as const, id: "c1", name: "add", arguments: { a: 1, b: 2 } }],
};

describe("AgentSession with extensions: when each event fires", () => {
  it("a prompt with a tool call: every event in order, each against what is stored", async () => {
    const seen: SeenEvent[] = [];
    const { agent, session } = await agentWithExtensions({
      responses: [addCall, "Three"],
      tools: [addTool],
      systemPrompt: "Be brief.",
      extensions: { recorder: recorder(seen) },
    });

    const { result } = await drain(agent.prompt("What is 1 + 2?"));

    expect(result.success).toBe(true);
    expect(timeline(seen, ["message_update"])).toEqual([
      "before_agent_start",
      "message_start:user",
      "message_end:user",
      "turn_start",
      "context",
      "before_provider_request",
      "message_start:assistant",
      "message_end:assistant",
      "tool_call",
      "tool_result",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "context",
      "before_provider_request",
      "message_start:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_complete",
    ]);
    // What was stored at each moment: starts before their entry, ends after it.
    const storedAt = seen
      .filter(({ event }) => event.type !== "message_update")
      .map(({ event, stored }) => [event.type, stored.length]);
    // The run records its system prompt (one entry) once before_agent_start had its say.
    expect(storedAt).toEqual([
      ["before_agent_start", 0],
      ["message_start", 1],
      ["message_end", 2],
      ["turn_start", 2],
      ["context", 2],
      ["before_provider_request", 2],
      ["message_start", 2],
      ["message_end", 3],
      ["tool_call", 3],
      ["tool_result", 3],
      ["message_start", 3],
      ["message_end", 4],
      ["turn_end", 4],
      ["turn_start", 4],
      ["context", 4],
      ["before_provider_request", 4],
      ["message_start", 4],
      ["message_end", 5],
      ["turn_end", 5],
      ["agent_complete", 5],
    ]);
    expect(shape(session).map(([, kind]) => kind)).toEqual([
      "custom:arbor.system-prompt",
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:assistant",
    ]);
  });

  it("payloads: prompt, context, request, turn indexes, entry ids and the turn's messages", async () => {
    const seen: SeenEvent[] = [];
    const { agent } = await agentWithExtensions({
      responses: [addCall, "Three"],
      tools: [addTool],
      systemPrompt: "Be brief.",
      extensions: { recorder: recorder(seen) },
    });
    await drain(agent.prompt("What is 1 + 2?"));
    const of = <T extends SeenEvent["event"]["type"]>(type: T) =>
      seen.filter(({ event }) => event.type === type).map(({ event }) => event);

    expect(of("before_agent_start")).toEqual([
      { type: "before_agent_start", prompt: "What is 1 + 2?", systemPrompt: "Be brief." },
    ]);
    expect(of("turn_start")).toEqual([
      { type: "turn_start", turnIndex: 0, timestamp: 5_000 },
      { type: "turn_start", turnIndex: 1, timestamp: 5_000 },
    ]);
    const contexts = of("context").map((event) =>
      "messages" in event ? event.messages.map((m) => m.role) : [],
    );
    expect(contexts).toEqual([["user"], ["user", "assistant", "toolResult"]]);
    const [request] = of("before_provider_request");
    expect(request).toMatchObject({
      model: { provider: "alpha", modelId: "alpha-model" },
      turnIndex: 0,
      request: {
        system: "Be brief.",
        messages: [{ role: "user", content: "What is 1 + 2?" }],
        tools: [{ name: "add" }],
      },
    });
    expect(request && "request" in request && "signal" in request.request).toBe(false);
    const ends = of("message_end") as MessageEndEvent[];
    // e1 records the system prompt the run used.
    expect(ends.map((event) => event.entryId)).toEqual(["e2", "e3", "e4", "e5"]);
    expect(of("tool_call")).toEqual([
      { type: "tool_call", toolCallId: "c1", toolName: "add", input: { a: 1, b: 2 } },
    ]);
    expect(of("tool_result")).toEqual([
      {
        type: "tool_result",
        toolCallId: "c1",
        toolName: "add",
        input: { a: 1, b: 2 },
        content: [{ type: "text", text: "3" }],
        isError: false,
      },
    ]);
    const [firstTurnEnd] = of("turn_end");
    expect(firstTurnEnd).toMatchObject({
      turnIndex: 0,
      message: { role: "assistant", stopReason: "tool_use" },
      toolResults: [{ role: "toolResult", toolCallId: "c1", content: [{ text: "3" }] }],
    });
  });

  it("message_update carries each stream event and the answer so far", async () => {
    const seen: SeenEvent[] = [];
    const { agent } = await agentWithExtensions({
      responses: [{ blocks: [{ type: "text", text: "Hello there" }], chunkSize: 4 }],
      extensions: { recorder: recorder(seen, ["message_update", "message_end"]) },
    });
    await drain(agent.prompt("Hi"));

    const updates = seen
      .map(({ event }) => event)
      .filter((event): event is MessageUpdateEvent => event.type === "message_update");
    const textDeltas = updates.filter((update) => update.delta.type === "text_delta");
    expect(textDeltas.map((update) => update.delta.delta)).toEqual(["Hell", "o th", "ere"]);
    const texts = textDeltas.map((update) => {
      const [block] = update.message.content as unknown as Array<{ text: string }>;
      return block?.text;
    });
    expect(texts).toEqual(["Hell", "Hello th", "Hello there"]);
    expect(seen.at(-1)?.event.type).toBe("message_end");
  });

  it("handlers get the running prompt's signal as ctx.signal, aborted with the prompt", async () => {
    const signals: Array<AbortSignal | undefined> = [];
    let abort = () => {};
    const { agent, model } = await agentWithExtensions({
      responses: ["never streamed"],
      extensions: {
        watcher: (arbor) =>
          arbor.on("turn_start", (_event, ctx) => {
            signals.push(ctx.signal);
            abort();
          }),
      },
    });
    abort = () => agent.abort();

    const { result } = await drain(agent.prompt("Hi"));

    expect(result).toMatchObject({ success: false, reason: "aborted" });
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);
    expect(model.requests.length).toBeLessThanOrEqual(1);
  });
});
