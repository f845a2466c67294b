import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeGeminiSignature } from "../adapter/gemini-signature.js";
import { collectStream } from "../spec/collect.js";
import { createGeminiModel } from "./gemini-model.js";
import { toGeminiRequest } from "./gemini-request.js";

// Byte-exact `alt=sse` streams and error bodies in `__fixtures__/gemini`, written from the
// examples of Google's Gemini API reference (thought signatures, function calling, rate
// limits and troubleshooting pages), replayed through the real `@google/genai` SDK.
const fixture = (name: string) =>
  readFileSync(new URL(`../__fixtures__/gemini/${name}`, import.meta.url));

function replaying(name: string, status = 200) {
  const bytes = fixture(name);
  const type = name.endsWith(".json") ? "application/json" : "text/event-stream";
  return createGeminiModel({
    model: "google/gemini-2.5-flash",
    apiKey: "AIza-test-key",
    fetch: async () => new Response(bytes, { status, headers: { "content-type": type } }),
  });
}

const ask = { messages: [{ role: "user" as const, content: "Weather in Paris and London?" }] };

describe("recorded Gemini streams", () => {
  it("keeps the frames as the API sends them (data lines, CRLF blank lines)", () => {
    const text = fixture("thought-signature-parallel-calls.sse").toString("utf8");
    expect(text.startsWith('data: {"candidates":')).toBe(true);
    expect(text.split("\r\n\r\n")).toHaveLength(5);
  });

  it("reads thoughts, the signature on the first call, parallel calls and a call without arguments", async () => {
    const result = await collectStream(
      replaying("thought-signature-parallel-calls.sse").stream(ask),
    );
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe("tool_use");
    const [thinking, paris, london, time] = result.message.content;
    expect(thinking).toMatchObject({
      type: "thinking",
      thinking:
        "**Planning the lookups**\n\nThe user asks for two cities; I will call the weather tool for each.",
    });
    const signature = decodeGeminiSignature((thinking as { signature?: string }).signature);
    expect(signature?.startsWith("CiQB0e2Kb2wsZ3ft")).toBe(true);
    expect(paris).toMatchObject({
      type: "toolCall",
      name: "get_weather",
      arguments: { location: "Paris" },
    });
    expect(london).toMatchObject({
      type: "toolCall",
      name: "get_weather",
      arguments: { location: "London" },
    });
    expect(time).toMatchObject({ type: "toolCall", name: "get_time", arguments: {} });
    const ids = [paris, london, time].map((part) => (part as { id: string }).id);
    expect(new Set(ids).size).toBe(3);
    // promptTokenCount counts the cached tokens; output counts the thoughts.
    expect(result.usage).toEqual({
      input: 18,
      output: 236,
      cacheRead: 64,
      cacheWrite: 0,
      reasoning: 190,
    });

    // The signature goes back on the first function call, where it came; generated ids do not.
    const params = toGeminiRequest(
      replaying("thought-signature-parallel-calls.sse").info,
      { messages: [...ask.messages, result.message] },
      new AbortController().signal,
    );
    expect(params.contents).toEqual([
      { role: "user", parts: [{ text: "Weather in Paris and London?" }] },
      {
        role: "model",
        parts: [
          {
            functionCall: { name: "get_weather", args: { location: "Paris" } },
            thoughtSignature: signature,
          },
          { functionCall: { name: "get_weather", args: { location: "London" } } },
          { functionCall: { name: "get_time", args: {} } },
        ],
      },
    ]);
  });

  it("sends a signature that closed a text answer back on that text", async () => {
    const model = replaying("text-signature-last-part.sse");
    const result = await collectStream(model.stream(ask));
    expect(result.text).toBe("The capital of France is Paris.");
    expect(result.usage).toMatchObject({ output: 31, reasoning: 24 });
    const params = toGeminiRequest(
      model.info,
      { messages: [result.message] },
      new AbortController().signal,
    );
    expect(params.contents).toEqual([
      {
        role: "model",
        parts: [
          {
            text: "The capital of France is Paris.",
            thoughtSignature: "EsYCCsMCAdHtim9j7FvXoSVHd2R4NK6x0Jb4rK0m7vGf9mC8ZP2S1zmQkTQm",
          },
        ],
      },
    ]);
  });

  it.each([
    ["finish-safety.sse", "content_filter"],
    ["finish-recitation.sse", "content_filter"],
    ["finish-max-tokens.sse", "length"],
    ["prompt-blocked.sse", "content_filter"],
  ])("maps %s to the %s stop reason", async (name, reason) => {
    const result = await collectStream(replaying(name).stream(ask));
    expect(result.error).toBeUndefined();
    expect(result.stopReason).toBe(reason);
  });

  it("reports MALFORMED_FUNCTION_CALL as invalid_response", async () => {
    const result = await collectStream(replaying("finish-malformed-function-call.sse").stream(ask));
    expect(result.stopReason).toBeUndefined();
    expect(result.error).toMatchObject({ kind: "invalid_response" });
    expect(result.error?.message).toContain("MALFORMED_FUNCTION_CALL");
  });

  it("takes a 429's RetryInfo delay as retryAfterMs", async () => {
    const result = await collectStream(replaying("429-per-minute.json", 429).stream(ask));
    expect(result.events).toHaveLength(1);
    expect(result.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 24_000, status: 429 });
    expect(result.error?.message).toContain("RESOURCE_EXHAUSTED");
  });

  it("reports a spent daily quota as quota_exceeded", async () => {
    const result = await collectStream(replaying("429-per-day.json", 429).stream(ask));
    expect(result.error).toMatchObject({ kind: "quota_exceeded", status: 429 });
  });

  it("reports API_KEY_INVALID as auth_error without the key", async () => {
    const result = await collectStream(replaying("400-api-key-invalid.json", 400).stream(ask));
    expect(result.error).toMatchObject({ kind: "auth_error", status: 400 });
    expect(result.error?.message).not.toContain("AIza-test-key");
  });
});
