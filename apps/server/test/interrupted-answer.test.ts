import { defineAgent } from "@arbor/orchestration";
import { describe, expect, it } from "vitest";
import { interruptedAnswer } from "../src/runs/postgres/interrupted-answer.js";
import type { ServerRunEvent } from "../src/runs/server-run-event.js";

const agent = defineAgent({ name: "a", models: ["fake/fake-model"], systemPrompt: "x" });
const models = { providers: { fake: { api: "openai-chat" as const, apiKey: "k" } } };

let seq = 0;
function event(type: string, extra: Record<string, unknown> = {}): ServerRunEvent {
  seq++;
  return {
    type,
    seq,
    runId: "run_x",
    timestamp: 0,
    turnIndex: 0,
    ...extra,
  } as unknown as ServerRunEvent;
}
const delta = (index: number, text: string) => event("text_delta", { index, delta: text });
const end = () =>
  event("message_end", { entryId: "e", target: { provider: "fake" }, stopReason: "tool_use" });

describe("the answer a dead instance was streaming", () => {
  it("keeps the text of the last turn after the last stored message, block by block", () => {
    const message = interruptedAnswer(
      [
        event("turn_start"),
        delta(0, "old "),
        end(),
        event("tool_result"),
        event("turn_start", { turnIndex: 1 }),
        delta(1, "second"),
        delta(0, "Hel"),
        delta(0, "lo"),
        event("thinking_delta", { index: 2, delta: "hmm" }),
      ],
      agent,
      models,
      42,
    );
    expect(message).toMatchObject({
      role: "assistant",
      stopReason: "aborted",
      content: [
        { type: "text", text: "Hello" },
        { type: "text", text: "second" },
      ],
      api: "openai-chat",
      provider: "fake",
      model: "fake-model",
      timestamp: 42,
    });
  });

  it("keeps nothing when nothing was being streamed: no events, only stored messages, empty deltas, a tool or a backoff", () => {
    for (const events of [
      [],
      [event("turn_start"), delta(0, "done"), end()],
      [event("turn_start"), delta(0, ""), delta(1, "")],
      [event("turn_start"), end(), event("tool_result"), event("retry", { attempt: 1 })],
    ]) {
      expect(interruptedAnswer(events, agent, models, 0)).toBeUndefined();
    }
  });

  it("names an unknown api and model rather than failing when the agent or provider is gone", () => {
    const message = interruptedAnswer(
      [delta(0, "partial")],
      undefined,
      () => undefined as never,
      0,
    );
    expect(message).toMatchObject({ api: "unknown", provider: "unknown", model: "unknown" });
  });
});
