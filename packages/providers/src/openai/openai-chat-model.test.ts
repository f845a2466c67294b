import { describe, expect, it } from "vitest";
import { ModelConfigError } from "../errors.js";
import { collectStream } from "../spec/collect.js";
import { createOpenAIChatModel } from "./openai-chat-model.js";

// Edge cases of OpenAI-compatible servers, played through a stub fetch; the wire-exact
// behaviour against a real socket is covered by the test harness's contract suite.
const sse = (...frames: unknown[]) =>
  frames
    .map((frame) => `data: ${typeof frame === "string" ? frame : JSON.stringify(frame)}\n\n`)
    .join("");
const chunk = (delta: unknown, finish: string | null = null) => ({
  id: "c",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish }],
});

function modelWith(body: string, init: ResponseInit = { status: 200 }) {
  const requests: unknown[] = [];
  const fetchStub = async (_input: string | URL | Request, request?: RequestInit) => {
    requests.push(JSON.parse(String(request?.body)));
    return new Response(body, {
      ...init,
      headers: { "content-type": "text/event-stream", ...init.headers },
    });
  };
  const model = createOpenAIChatModel({
    model: "local-model",
    apiKey: "k",
    baseURL: "http://127.0.0.1:1/v1",
    fetch: fetchStub,
  });
  return { model, requests };
}

const ask = { messages: [{ role: "user" as const, content: "hi" }] };

describe("createOpenAIChatModel", () => {
  it("refuses to build without an apiKey or a client", () => {
    expect(() => createOpenAIChatModel({ model: "openai/gpt-4.1" })).toThrowError(ModelConfigError);
  });

  it("gives an unknown model id generic limits and zero prices", () => {
    const { model } = modelWith("");
    expect(model.info).toMatchObject({ id: "local-model", provider: "openai", api: "openai-chat" });
    expect(model.info.pricing.input).toBe(0);
  });

  it("reads reasoning from both `reasoning_content` and `reasoning` deltas", async () => {
    const { model } = modelWith(
      sse(
        chunk({ role: "assistant" }),
        chunk({ reasoning_content: "think " }),
        chunk({ reasoning: "more" }),
        chunk({ content: "answer" }),
        chunk({}, "stop"),
        "[DONE]",
      ),
    );
    const result = await collectStream(model.stream(ask));
    expect(result.thinking).toBe("think more");
    expect(result.text).toBe("answer");
    expect(result.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(result.stopReason).toBe("stop");
  });

  it("reports a stream that ends without a finish_reason as network_error", async () => {
    const { model } = modelWith(sse(chunk({ role: "assistant" }), chunk({ content: "half" })));
    const result = await collectStream(model.stream(ask));
    expect(result.events.map((e) => e.type)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_end",
      "error",
    ]);
    expect(result.error?.kind).toBe("network_error");
  });

  it("maps content_filter and tool_calls finish reasons", async () => {
    const filtered = modelWith(sse(chunk({ content: "x" }, "content_filter"), "[DONE]"));
    expect((await collectStream(filtered.model.stream(ask))).stopReason).toBe("content_filter");
    const tools = modelWith(
      sse(
        chunk({
          tool_calls: [
            { index: 0, id: "t1", type: "function", function: { name: "f", arguments: '{"a":' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
        chunk({}, "tool_calls"),
        "[DONE]",
      ),
    );
    const result = await collectStream(tools.model.stream(ask));
    expect(result.message.content).toEqual([
      { type: "toolCall", id: "t1", name: "f", arguments: { a: 1 } },
    ]);
    expect(result.stopReason).toBe("tool_use");
  });

  it("tells tool calls apart by id when a server omits `index`", async () => {
    const { model } = modelWith(
      sse(
        chunk({
          tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: '{"x":' } }],
        }),
        chunk({ tool_calls: [{ function: { arguments: "1}" } }] }),
        chunk({
          tool_calls: [{ id: "b", type: "function", function: { name: "g", arguments: "{}" } }],
        }),
        chunk({}, "tool_calls"),
        "[DONE]",
      ),
    );
    const result = await collectStream(model.stream(ask));
    expect(result.message.content).toEqual([
      { type: "toolCall", id: "a", name: "f", arguments: { x: 1 } },
      { type: "toolCall", id: "b", name: "g", arguments: {} },
    ]);
  });

  it("classifies an HTTP error with its status and never throws", async () => {
    const { model } = modelWith(
      JSON.stringify({ error: { message: "nope", code: "invalid_api_key" } }),
      {
        status: 401,
        headers: { "content-type": "application/json" },
      },
    );
    const result = await collectStream(model.stream(ask));
    expect(result.events).toEqual([
      { type: "error", kind: "auth_error", status: 401, message: expect.any(String) },
    ]);
  });

  it("sends max_tokens to servers that want it", async () => {
    const requests: Array<Record<string, unknown>> = [];
    const model = createOpenAIChatModel({
      model: "llama",
      apiKey: "k",
      baseURL: "http://127.0.0.1:1/v1",
      maxTokensField: "max_tokens",
      fetch: async (_input, init) => {
        requests.push(JSON.parse(String(init?.body)));
        return new Response(sse(chunk({}, "stop"), "[DONE]"), {
          headers: { "content-type": "text/event-stream" },
        });
      },
    });
    await collectStream(model.stream({ ...ask, maxOutputTokens: 64 }));
    expect(requests[0]).toMatchObject({ max_tokens: 64, stream: true });
    expect(requests[0]).not.toHaveProperty("max_completion_tokens");
  });
});
