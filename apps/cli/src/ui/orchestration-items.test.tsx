import type { RunEvent } from "@arbor/orchestration";
import { CHILD_SESSION_CUSTOM_TYPE } from "@arbor/orchestration";
import { MemorySessionStore } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { describe, expect, it } from "vitest";
import { applyOrchestrationEvent } from "./orchestration-items.js";
import { type TranscriptItem, transcriptFromSession } from "./transcript.js";
import { TranscriptView } from "./transcript-view.js";

const usage = (input: number, output: number) => ({ input, output, cacheRead: 0, cacheWrite: 0 });

let seq = 0;
function child(
  type: "child_start" | "child_end",
  role: "advisor" | "destination" | "handoff" | "subagent",
  agentPath: string,
  end: { outcome?: string; message?: string; tokens?: [number, number]; cost?: number } = {},
): RunEvent {
  seq += 1;
  const base = {
    type,
    runId: "root-run",
    childRunId: "child-run",
    parentRunId: "root-run",
    seq,
    childSessionId: `s-${agentPath}`,
    parentSessionId: "root",
    role,
    agent: agentPath.split(":").at(-1) as string,
    agentPath,
  };
  if (type === "child_start") return base as RunEvent;
  const [input, output] = end.tokens ?? [0, 0];
  return {
    ...base,
    outcome: end.outcome ?? "succeeded",
    ...(end.message ? { message: end.message } : {}),
    usage: usage(input, output),
    cost: end.cost ?? 0,
  } as RunEvent;
}

function agentEvent(agentPath: string, payload: Record<string, unknown>): RunEvent {
  seq += 1;
  return {
    runId: `run-${agentPath}`,
    seq,
    ancestry: { runId: `run-${agentPath}`, sessionId: "x", originId: "o", agentPath },
    ...payload,
  } as RunEvent;
}

function fold(events: RunEvent[]): readonly TranscriptItem[] {
  return events.reduce<readonly TranscriptItem[]>(applyOrchestrationEvent, []);
}

function screen(items: readonly TranscriptItem[]): string {
  const app = render(<TranscriptView items={items} />);
  const frame = app.lastFrame() ?? "";
  app.unmount();
  return frame;
}

describe("the transcript of an agent file's run", () => {
  it("shows each kind of child run while it runs, then its outcome, tokens and cost in the same row", () => {
    const started = fold([
      child("child_start", "advisor", "main:skeptic"),
      child("child_start", "advisor", "main:slow"),
      child("child_start", "destination", "main:tech"),
      child("child_start", "subagent", "main:tech:log-reader"),
      child("child_start", "handoff", "main:tone"),
    ]);
    const running = screen(started);
    expect(running).toContain("◆ advisor main:skeptic … running");
    expect(running).toContain("↪ routed to main:tech … running");
    expect(running).toContain("⚙ sub-agent main:tech:log-reader … running");
    expect(running).toContain("⇢ handoff to main:tone … running");
    expect(running).not.toContain("tokens");

    const ended = [
      child("child_end", "advisor", "main:skeptic", { tokens: [100, 20], cost: 0.00125 }),
      child("child_end", "advisor", "main:slow", {
        outcome: "timed_out",
        message: "no answer within 50 ms (timeoutMs)",
      }),
      child("child_end", "subagent", "main:tech:log-reader", {
        outcome: "failed",
        message: "model_error: boom",
        tokens: [7, 0],
      }),
      child("child_end", "destination", "main:tech", {
        outcome: "aborted",
        message: "aborted: Esc",
      }),
      child("child_end", "handoff", "main:tone", { outcome: "interrupted" }),
    ].reduce(applyOrchestrationEvent, started);
    expect(ended.filter((item) => item.kind === "child")).toHaveLength(5);
    const done = screen(ended);
    expect(done).toContain("◆ advisor main:skeptic ✓ succeeded · 120 tokens · $0.0013");
    expect(done).toContain("◆ advisor main:slow ✗ timed out · 0 tokens: no answer within 50 ms");
    expect(done).toContain(
      "⚙ sub-agent main:tech:log-reader ✗ failed · 7 tokens: model_error: boom",
    );
    expect(done).toContain("↪ routed to main:tech ✗ aborted · 0 tokens: aborted: Esc");
    expect(done).toContain("⇢ handoff to main:tone ✗ interrupted");
    expect(done).not.toContain("running");
  });

  it("marks each streamed answer with the agent path of the agent giving it", () => {
    const items = fold([
      agentEvent("main", { type: "turn_start", turnIndex: 0 }),
      agentEvent("main", { type: "text_delta", turnIndex: 0, contentIndex: 0, delta: "Routing." }),
      child("child_start", "destination", "main:tech"),
      agentEvent("main:tech", { type: "turn_start", turnIndex: 0 }),
      agentEvent("main:tech", {
        type: "text_delta",
        turnIndex: 0,
        contentIndex: 0,
        delta: "Fixed.",
      }),
    ]);
    const assistants = items.filter((item) => item.kind === "assistant");
    expect(assistants.map((item) => item.kind === "assistant" && item.agent)).toEqual([
      "main",
      "main:tech",
    ]);
    const shown = screen(items);
    expect(shown.indexOf("main:tech ›")).toBeLessThan(shown.indexOf("Fixed."));
    expect(shown.indexOf("↪ routed to main:tech")).toBeLessThan(shown.indexOf("main:tech ›"));
  });

  it("shows a child that ended without a start it saw, and escapes control characters an agent path carries", () => {
    const items = fold([
      child("child_end", "subagent", "main:\u001b]0;pwned\u0007x", { tokens: [1, 1] }),
    ]);
    const shown = screen(items);
    expect(shown).toContain("⚙ sub-agent main:\\x1b]0;pwned\\x07x ✓ succeeded · 2 tokens");
    expect(shown).not.toContain("\u001b]0;");
  });

  it("shows a stored run's children once each, with their newest outcome; damaged entries are skipped", async () => {
    const session = await new MemorySessionStore().create({ cwd: "/project" });
    const entry = { childSessionId: "c1", role: "subagent", agent: "r", agentPath: "main:r" };
    await session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, { ...entry, outcome: "running" });
    await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, { outcome: "nonsense" });
    await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, "not an object");
    await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, {
      ...entry,
      outcome: "succeeded",
      usage: usage(3, 4),
      cost: 0,
    });
    const items = transcriptFromSession(session);
    expect(items.map((item) => item.kind)).toEqual(["user", "child"]);
    expect(screen(items)).toContain("⚙ sub-agent main:r ✓ succeeded · 7 tokens");
    await session.close();
  });
});
