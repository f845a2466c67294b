import type {
  AgentEvent,
  AgentEventPayload,
  AgentFailureReason,
  AgentResult,
} from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import type { TranscriptItem } from "./transcript.js";
import { applyAgentEvent } from "./transcript-events.js";

const common = {
  runId: "run-1",
  turns: 1,
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  cost: 0,
  session: { id: "x", location: "memory:x" },
  sessionFile: "memory:x",
};

const result = (reason?: AgentFailureReason, message = ""): AgentResult =>
  reason === undefined
    ? { success: true, finalReport: { status: "delivered", value: "", repaired: false }, ...common }
    : {
        success: false,
        reason,
        message,
        finalReport: { status: "failed", reason, message },
        ...common,
      };

function fold(payloads: AgentEventPayload[]): readonly TranscriptItem[] {
  const events = payloads.map(
    (payload, index) => ({ runId: "run-1", seq: index + 1, ...payload }) as AgentEvent,
  );
  return events.reduce<readonly TranscriptItem[]>(
    (items, event) => applyAgentEvent(items, event),
    [],
  );
}

const strip = (items: readonly TranscriptItem[]) =>
  items.map((item) => {
    const { id: _id, ...rest } = item;
    return rest;
  });

describe("applyAgentEvent", () => {
  it("streams text, thinking and tool calls into one answer and marks tool results", () => {
    const items = fold([
      { type: "turn_start", turnIndex: 0 },
      { type: "thinking_delta", turnIndex: 0, index: 0, delta: "hmm" },
      {
        type: "toolcall_delta",
        turnIndex: 0,
        index: 1,
        toolCallId: "c1",
        toolName: "read_file",
        delta: "{",
      },
      {
        type: "toolcall_delta",
        turnIndex: 0,
        index: 1,
        toolCallId: "c1",
        toolName: "read_file",
        delta: "}",
      },
      {
        type: "message_end",
        turnIndex: 0,
        entryId: "e1",
        target: { provider: "p", model: "m" },
        stopReason: "tool_use",
      },
      {
        type: "tool_result",
        turnIndex: 0,
        entryId: "e2",
        toolCallId: "c1",
        toolName: "read_file",
        isError: false,
      },
      { type: "turn_start", turnIndex: 1 },
      { type: "text_delta", turnIndex: 1, index: 0, delta: "Done" },
    ]);
    expect(strip(items)).toEqual([
      {
        kind: "assistant",
        text: "",
        thinking: "hmm",
        tools: [{ id: "c1", name: "read_file", status: "done" }],
        status: "done",
      },
      { kind: "assistant", text: "Done", thinking: "", tools: [], status: "streaming" },
    ]);
    expect(items[0]?.id).toBe("e1");
  });

  it("replaces an interrupted answer with a notice and a fresh answer for the retry", () => {
    const items = fold([
      { type: "turn_start", turnIndex: 0 },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "console.log" },
      {
        type: "ttsr_triggered",
        turnIndex: 0,
        rules: [{ name: "no-console", content: "Use the logger.", scope: ["text", "tool"] }],
        contextMode: "discard",
        interrupted: true,
      },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "logger" },
    ]);
    expect(strip(items)).toEqual([
      {
        kind: "notice",
        text: "Stream rule no-console matched: the answer was restarted with a reminder.",
        tone: "info",
      },
      { kind: "assistant", text: "logger", thinking: "", tools: [], status: "streaming" },
    ]);
  });

  it("marks an aborted answer, and adds an error notice for other failures", () => {
    const aborted = fold([
      { type: "turn_start", turnIndex: 0 },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "part" },
      { type: "agent_end", result: result("aborted") },
    ]);
    expect(strip(aborted)).toEqual([
      { kind: "assistant", text: "part", thinking: "", tools: [], status: "aborted" },
    ]);
    const failed = fold([
      { type: "turn_start", turnIndex: 0 },
      {
        type: "agent_end",
        result: result("retries_exhausted", "last error: 503"),
      },
    ]);
    expect(failed.at(-1)).toMatchObject({
      kind: "notice",
      tone: "error",
      text: "The answer failed (retries_exhausted: last error: 503).",
    });
  });
});

describe("applyAgentEvent: notices that arrive while an answer streams", () => {
  const answerOf = (items: readonly TranscriptItem[]) =>
    items.filter((item) => item.kind === "assistant");

  it("the answer after an automatic compaction is shown whole, below the notice", () => {
    for (const reason of ["threshold", "overflow"] as const) {
      for (const status of ["compacted", "failed"] as const) {
        const items = fold([
          { type: "turn_start", turnIndex: 0 },
          { type: "compaction", turnIndex: 0, reason, status, tokensBefore: 9000, message: "x" },
          { type: "text_delta", turnIndex: 0, index: 0, delta: "Hello " },
          { type: "text_delta", turnIndex: 0, index: 0, delta: "there" },
          { type: "message_end", turnIndex: 0, entryId: "e9" } as AgentEventPayload,
        ]);
        const answers = answerOf(items);
        expect(answers, `${reason} ${status}`).toHaveLength(1);
        expect(answers[0]).toMatchObject({ text: "Hello there", status: "done", id: "e9" });
        expect(items.at(-1)?.kind).toBe("assistant");
        expect(items.some((item) => item.kind === "notice")).toBe(true);
      }
    }
  });

  it("a retry's notice does not swallow the retried answer", () => {
    const items = fold([
      { type: "turn_start", turnIndex: 0 },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "cut" },
      {
        type: "retry",
        turnIndex: 0,
        attempt: 1,
        kind: "network_error",
        message: "reset",
        target: { provider: "fake", model: "m" },
        action: "retry",
        delayMs: 0,
      } as AgentEventPayload,
      { type: "text_delta", turnIndex: 0, index: 0, delta: "whole answer" },
    ]);
    expect(answerOf(items)).toMatchObject([{ text: "whole answer", status: "streaming" }]);
  });

  it("text never lands in an earlier, finished answer", () => {
    const items = fold([
      { type: "turn_start", turnIndex: 0 },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "first" },
      { type: "message_end", turnIndex: 0, entryId: "e1" } as AgentEventPayload,
      { type: "compaction", turnIndex: 0, reason: "threshold", status: "compacted" },
      { type: "text_delta", turnIndex: 0, index: 0, delta: "stray" },
    ]);
    expect(answerOf(items)).toMatchObject([{ text: "first", status: "done" }]);
  });
});
