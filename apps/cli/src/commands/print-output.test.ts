import type { AgentEvent } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { AcceptedText } from "./print-output.js";

const envelope = { runId: "r", seq: 0, sessionId: "s", timestamp: 0 };
const delta = (text: string) => ({
  ...envelope,
  type: "text_delta",
  turnIndex: 0,
  index: 0,
  delta: text,
});
const messageEnd = {
  ...envelope,
  type: "message_end",
  turnIndex: 0,
  entryId: "e",
  stopReason: "stop",
};
const turnEnd = { ...envelope, type: "turn_end", turnIndex: 0 };
const ttsr = (interrupted: boolean) => ({
  ...envelope,
  type: "ttsr_triggered",
  rules: [{ name: "r", content: "Use the logger.", scope: ["text"] }],
  interrupted,
});
const retry = { ...envelope, type: "retry" };
const rejected = { ...envelope, type: "answer_rejected", attempt: 1, problems: [], entryId: "e" };

/** Feeds events (loosely typed: only the fields AcceptedText reads) and returns what was written. */
function written(events: Array<Record<string, unknown>>): string {
  const text = new AcceptedText();
  let out = "";
  for (const event of events) out += text.take(event as unknown as AgentEvent);
  return out + text.finish();
}

describe("AcceptedText", () => {
  it("writes an answer once its turn ends, and a final line break", () => {
    expect(written([delta("Hel"), delta("lo"), messageEnd, turnEnd])).toBe("Hello\n");
    expect(written([delta("done\n"), messageEnd, turnEnd])).toBe("done\n");
    expect(written([])).toBe("");
  });

  it("never writes an attempt that a stream rule interrupts, a retry replaces or the runner rejects", () => {
    const cases: Array<Array<Record<string, unknown>>> = [
      [delta("console.lo"), ttsr(true), delta("logger.info"), messageEnd, turnEnd],
      [delta("console.log"), messageEnd, ttsr(true), delta("logger.info"), messageEnd, turnEnd],
      [delta("half an ans"), retry, delta("logger.info"), messageEnd, turnEnd],
      [delta("cut off"), messageEnd, rejected, delta("logger.info"), messageEnd, turnEnd],
    ];
    for (const events of cases) expect(written(events)).toBe("logger.info\n");
    // A rule that only queues a reminder keeps the answer.
    expect(written([delta("kept"), ttsr(false), messageEnd, turnEnd])).toBe("kept\n");
  });

  it("puts the answers of successive turns on lines of their own", () => {
    expect(
      written([
        delta("Let me look."),
        messageEnd,
        turnEnd,
        delta("Found it."),
        messageEnd,
        turnEnd,
      ]),
    ).toBe("Let me look.\nFound it.\n");
  });
});
