import { describe, expect, it } from "vitest";
import { collectStream } from "../spec/collect.js";
import { ScriptExhaustedError } from "./script-exhausted-error.js";
import { ScriptedModel } from "./scripted-model.js";

const user = (content: string) => ({ messages: [{ role: "user" as const, content }] });

describe("ScriptedModel", () => {
  it("plays one response per call and records every request", async () => {
    const model = new ScriptedModel({ responses: ["first", "second"] });
    expect((await collectStream(model.stream(user("a")))).text).toBe("first");
    expect((await collectStream(model.stream(user("b")))).text).toBe("second");
    expect(model.requests.map((r) => r.messages[0]?.content)).toEqual(["a", "b"]);
    expect(model.remaining).toBe(0);
  });

  it("throws loudly when called more often than scripted", () => {
    const model = new ScriptedModel({ responses: ["only"] });
    model.stream(user("a"));
    expect(() => model.stream(user("b"))).toThrowError(ScriptExhaustedError);
    try {
      model.stream(user("c"));
    } catch (error) {
      expect(ScriptExhaustedError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/call #2 but only 1 response/);
    }
  });

  it("emits text, thinking and tool calls with the scripted chunking", async () => {
    const model = new ScriptedModel({
      responses: [
        {
          blocks: [
            { type: "thinking", thinking: "hmm", signature: "s" },
            { type: "text", text: "ab🌳" },
            { type: "toolCall", name: "read", arguments: { p: 1 } },
          ],
          chunkSize: 1,
          usage: { input: 3, output: 4 },
        },
      ],
    });
    const { events } = await collectStream(model.stream(user("x")));
    expect(
      events.map((e) =>
        e.type.endsWith("_delta") ? `${e.type}:${(e as { delta: string }).delta}` : e.type,
      ),
    ).toMatchInlineSnapshot(`
        [
          "start",
          "thinking_start",
          "thinking_delta:h",
          "thinking_delta:m",
          "thinking_delta:m",
          "thinking_end",
          "text_start",
          "text_delta:a",
          "text_delta:b",
          "text_delta:🌳",
          "text_end",
          "toolcall_start",
          "toolcall_delta:{",
          "toolcall_delta:"",
          "toolcall_delta:p",
          "toolcall_delta:"",
          "toolcall_delta::",
          "toolcall_delta:1",
          "toolcall_delta:}",
          "toolcall_end",
          "usage",
          "done",
        ]
      `);
    expect(events.at(-1)).toEqual({ type: "done", reason: "tool_use" });
    expect(events.at(-2)).toEqual({
      type: "usage",
      usage: { input: 3, output: 4, cacheRead: 0, cacheWrite: 0 },
    });
    expect(events.find((e) => e.type === "toolcall_end")).toMatchObject({
      toolCall: { id: "call_2", name: "read", arguments: { p: 1 } },
    });
  });

  it("fails with any kind after N deltas", async () => {
    const model = new ScriptedModel({
      responses: [
        {
          blocks: [{ type: "text", text: "abcdef" }],
          chunkSize: 2,
          error: { kind: "rate_limit", afterDeltas: 2, retryAfterMs: 100 },
        },
        { error: { kind: "auth_error" } },
      ],
    });
    const first = await collectStream(model.stream(user("x")));
    expect(first.events.filter((e) => e.type === "text_delta")).toHaveLength(2);
    expect(first.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 100 });
    const second = await collectStream(model.stream(user("y")));
    expect(second.events).toEqual([
      { type: "error", kind: "auth_error", message: "scripted auth_error" },
    ]);
  });

  it("honours the abort signal between delayed deltas", async () => {
    const model = new ScriptedModel({
      responses: [{ blocks: [{ type: "text", text: "abcdefgh" }], chunkSize: 1, delayMs: 20 }],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const { events, error } = await collectStream(
      model.stream({ ...user("x"), signal: controller.signal }),
    );
    expect(error?.kind).toBe("aborted");
    expect(events.filter((e) => e.type === "text_delta").length).toBeLessThan(8);
  });

  it("reports broken scripted tool JSON as invalid_response", async () => {
    const model = new ScriptedModel({
      responses: [{ blocks: [{ type: "toolCall", name: "t", argumentsText: "{oops" }] }],
    });
    const { error } = await collectStream(model.stream(user("x")));
    expect(error?.kind).toBe("invalid_response");
  });
});
