import { describe, expect, it } from "vitest";
import { extensionEventResultSchemas } from "./event-results.js";
import {
  EXTENSION_EVENT_NAMES,
  type ExtensionEventMap,
  type ExtensionEventName,
} from "./events.js";
import { ExtensionRunner } from "./runner.js";
import { compactEvent } from "./testing/event-samples.js";

/** One payload per event; the mapped type makes a missing event a type error. */
const samples: { [K in ExtensionEventName]: ExtensionEventMap[K] } = {
  session_start: {
    type: "session_start",
    reason: "fork",
    sessionId: "s2",
    previousSessionId: "s1",
  },
  before_agent_start: { type: "before_agent_start", prompt: "hi", systemPrompt: "be brief" },
  context: { type: "context", messages: [{ role: "user", content: "hi" }] },
  before_provider_request: {
    type: "before_provider_request",
    model: { provider: "openai", modelId: "gpt-4.1" },
    turnIndex: 0,
    request: { system: "be brief", messages: [] },
  },
  turn_start: { type: "turn_start", turnIndex: 0, timestamp: 1 },
  message_start: { type: "message_start", message: { role: "assistant", content: [] } },
  message_update: {
    type: "message_update",
    message: { role: "assistant", content: [{ type: "text", text: "He" }] },
    delta: { type: "text_delta", index: 0, delta: "He" },
  },
  message_end: {
    type: "message_end",
    message: { role: "assistant", content: "Hello" },
    entryId: "e1",
  },
  tool_call: { type: "tool_call", toolCallId: "c1", toolName: "read", input: { path: "a" } },
  tool_result: {
    type: "tool_result",
    toolCallId: "c1",
    toolName: "read",
    input: { path: "a" },
    content: [{ type: "text", text: "file" }],
    isError: false,
  },
  turn_end: { type: "turn_end", turnIndex: 0, message: { role: "assistant" }, toolResults: [] },
  ttsr_triggered: {
    type: "ttsr_triggered",
    turnIndex: 0,
    rules: [
      { name: "no-any", path: "rules/no-any.md", content: "Do not use any.", scope: ["text"] },
    ],
    source: { kind: "text" },
  },
  model_select: {
    type: "model_select",
    model: { provider: "anthropic", modelId: "claude-sonnet-4-6" },
    previousModel: null,
    source: "failover",
  },
  agent_complete: {
    type: "agent_complete",
    report: { answer: 42 },
    repaired: false,
    entryId: "e9",
    meta: { sources: { urls: ["https://example.com"] } },
  },
  session_before_compact: compactEvent("overflow"),
  session_compact: {
    type: "session_compact",
    entryId: "e2",
    summary: "s",
    tokensBefore: 1000,
    fromExtension: false,
  },
  session_before_tree: {
    type: "session_before_tree",
    targetId: null,
    oldLeafId: "e2",
    commonAncestorId: null,
    entriesToSummarize: [],
    userWantsSummary: false,
  },
  session_tree: { type: "session_tree", newLeafId: null, oldLeafId: "e2", fromExtension: false },
  session_shutdown: { type: "session_shutdown", sessionId: "s2" },
};

describe("every event", () => {
  it.each(EXTENSION_EVENT_NAMES)("%s reaches its handlers unchanged", async (name) => {
    const received: unknown[] = [];
    const runner = new ExtensionRunner({ cwd: "/p" });
    await runner.addExtension("probe", (arbor) => {
      arbor.on(name, (event) => {
        received.push(event);
        return undefined;
      });
    });
    const sample = samples[name];
    await runner.emit(sample);
    expect(received).toEqual([sample]);
    expect(received[0]).not.toBe(sample);
  });

  it("has a result schema exactly when its return value can change something", () => {
    expect(Object.keys(extensionEventResultSchemas).sort()).toEqual([
      "before_agent_start",
      "context",
      "session_before_compact",
      "session_before_tree",
      "tool_call",
      "tool_result",
    ]);
  });

  it.each(EXTENSION_EVENT_NAMES.filter((name) => !(name in extensionEventResultSchemas)))(
    "%s resolves to undefined: its handlers only observe",
    async (name) => {
      expect(await new ExtensionRunner({ cwd: "/p" }).emit(samples[name])).toBeUndefined();
    },
  );
});
