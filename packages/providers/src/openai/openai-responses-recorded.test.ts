import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeResponsesReasoning } from "../adapter/responses-reasoning.js";
import { collectStream } from "../spec/collect.js";
import { createOpenAIResponsesModel } from "./openai-responses-model.js";

// Byte-exact Responses streams in `__fixtures__/openai-responses`, written from the
// streaming-event examples of OpenAI's API reference (`event:` lines, `sequence_number`s,
// `obfuscation` fields included), replayed through the real OpenAI SDK.
const fixture = (name: string) =>
  readFileSync(new URL(`../__fixtures__/openai-responses/${name}`, import.meta.url));

function replaying(name: string) {
  const bytes = fixture(name);
  let body: unknown;
  const model = createOpenAIResponsesModel({
    model: "o4-mini",
    apiKey: "sk-test",
    fetch: async (_input, init) => {
      body = JSON.parse(String(init?.body));
      return new Response(bytes, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return { model, sent: () => body as Record<string, unknown> };
}

const ask = { messages: [{ role: "user" as const, content: "Weather in Paris and Bogotá?" }] };

describe("recorded OpenAI Responses streams", () => {
  it("keeps the bytes of the recording as the vendor sends them", () => {
    const text = fixture("reasoning-parallel-tool-calls.sse").toString("utf8");
    expect(text.startsWith("event: response.created\ndata: {")).toBe(true);
    expect(text).toContain('"sequence_number":0}');
    expect(text.endsWith('"sequence_number":24}\n\n')).toBe(true);
  });

  it("reads reasoning summaries, encrypted reasoning and parallel calls", async () => {
    const { model } = replaying("reasoning-parallel-tool-calls.sse");
    const result = await collectStream(model.stream(ask));
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("tool_use");
    const [thinking, first, second] = result.message.content;
    expect(thinking).toMatchObject({
      type: "thinking",
      thinking:
        "**Checking the weather in two cities**\n\nThe user wants Paris and Bogotá.\n\n**Calling the tool twice**\n\nI can ask for both at once.",
    });
    const ref = decodeResponsesReasoning((thinking as { signature?: string }).signature);
    expect(ref?.id).toBe("rs_6876cf02e0bc8192b74af0fb64b715ff06fa2fcced15a5ac");
    expect(ref?.encryptedContent?.startsWith("gAAAAABodm8C")).toBe(true);
    expect(first).toEqual({
      type: "toolCall",
      id: "call_12345xyz",
      name: "get_weather",
      arguments: { location: "Paris, France" },
    });
    expect(second).toEqual({
      type: "toolCall",
      id: "call_67890abc",
      name: "get_weather",
      arguments: { location: "Bogotá, Colombia" },
    });
    // input_tokens counts the cached ones; Arbor's `input` does not.
    expect(result.usage).toEqual({
      input: 254,
      output: 395,
      cacheRead: 2048,
      cacheWrite: 0,
      reasoning: 320,
    });
    const deltas = result.events.filter((event) => event.type === "toolcall_delta");
    expect(deltas.map((event) => event.index)).toEqual([1, 1, 2, 2]);
  });

  it("maps response.incomplete for max_output_tokens to the length stop reason", async () => {
    const { model } = replaying("incomplete-max-output-tokens.sse");
    const result = await collectStream(model.stream(ask));
    expect(result.text).toBe("Hi there! How can I");
    expect(result.stopReason).toBe("length");
    expect(result.usage).toEqual({ input: 37, output: 16, cacheRead: 0, cacheWrite: 0 });
  });

  it("classifies an error event as a rate limit with the wait it names", async () => {
    const { model } = replaying("error-rate-limit.sse");
    const result = await collectStream(model.stream(ask));
    expect(result.events.map((event) => event.type)).toEqual(["start", "error"]);
    expect(result.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 210 });
    expect(result.error?.message).toContain("rate_limit_exceeded");
  });

  it("classifies response.failed by its error code", async () => {
    const { model } = replaying("failed-server-error.sse");
    const result = await collectStream(model.stream(ask));
    expect(result.error).toMatchObject({ kind: "model_error" });
    expect(result.error?.message).toContain("The model failed to generate a response.");
  });
});
