import { describe, expect, it } from "vitest";
import { z } from "zod";
import { costOf, findModelInfo, MODEL_CATALOGUE, modelInfoSchema } from "./catalogue.js";
import { MODEL_EVENT_TYPES, modelEventSchema } from "./events.js";
import { modelRequestSchema } from "./request.js";
import { toolFromZod } from "./tool-definition.js";

describe("toolFromZod", () => {
  it("derives a JSON schema without the dialect marker", () => {
    const tool = toolFromZod(
      "read_file",
      "Reads a file",
      z.object({ path: z.string().describe("relative path"), limit: z.number().int().optional() }),
    );
    expect(tool).toEqual({
      name: "read_file",
      description: "Reads a file",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "relative path" },
          limit: { type: "integer", minimum: expect.any(Number), maximum: expect.any(Number) },
        },
        required: ["path"],
      },
    });
  });
});

describe("model request schema", () => {
  it("accepts every message kind and an abort signal", () => {
    const parsed = modelRequestSchema.parse({
      system: "sys",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "t", signature: "s" },
            { type: "text", text: "ok" },
            { type: "toolCall", id: "c1", name: "read", arguments: { p: "a" } },
          ],
        },
        {
          role: "toolResult",
          toolCallId: "c1",
          toolName: "read",
          content: [{ type: "text", text: "data" }],
        },
      ],
      reasoning: "high",
      signal: new AbortController().signal,
    });
    expect(parsed.messages[2]).toMatchObject({ isError: false });
  });

  it("rejects tool names providers would refuse", () => {
    expect(() =>
      modelRequestSchema.parse({
        messages: [],
        tools: [{ name: "bad name", description: "", parameters: {} }],
      }),
    ).toThrow(/tool names/);
  });
});

describe("model events", () => {
  it("lists every event type once, in the documented vocabulary", () => {
    expect(MODEL_EVENT_TYPES).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_end",
      "thinking_start",
      "thinking_delta",
      "thinking_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_end",
      "usage",
      "done",
      "error",
    ]);
  });

  it("validates an error event with its kind", () => {
    expect(
      modelEventSchema.safeParse({
        type: "error",
        kind: "rate_limit",
        message: "m",
        retryAfterMs: 5,
      }).success,
    ).toBe(true);
    expect(
      modelEventSchema.safeParse({ type: "error", kind: "teapot", message: "m" }).success,
    ).toBe(false);
  });
});

describe("catalogue", () => {
  it("holds valid entries keyed by provider/id", () => {
    for (const [key, info] of Object.entries(MODEL_CATALOGUE)) {
      expect(modelInfoSchema.parse(info)).toEqual(info);
      expect(key).toBe(`${info.provider}/${info.id}`);
    }
    expect(findModelInfo("nobody/nothing")).toBeUndefined();
  });

  it("prices usage per million tokens", () => {
    const info = findModelInfo("anthropic/claude-haiku-4-5");
    if (!info) throw new Error("catalogue lost claude-haiku-4-5");
    expect(
      costOf(
        { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 },
        info.pricing,
      ),
    ).toBeCloseTo(1 + 5 + 0.1 + 1.25);
  });
});
