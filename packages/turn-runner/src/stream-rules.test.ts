import type { CustomMessageEntry, TtsrInjectionEntry } from "@arbor/session-store";
import { TtsrManager } from "@arbor/ttsr";
import { describe, expect, it } from "vitest";
import { addTool, drain, memorySession, messageOf, scripted, shape } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { TTSR_INTERRUPT_CUSTOM_TYPE } from "./ttsr-interrupt.js";

function rules(contextMode: "discard" | "keep") {
  const ttsr = new TtsrManager();
  ttsr.addRule({
    name: "no-console",
    path: "/repo/.arbor/rules/no-console.md",
    content: "Use the logger, not console.log.",
    condition: "console\\.log",
    contextMode,
  });
  return ttsr;
}

const violating = {
  blocks: [{ type: "text" as const, text: "Add console.log(x) and then more text here" }],
  chunkSize: 3,
};

describe("AgentSession: stream rules", () => {
  it("discard: cuts the stream, keeps the partial as an aborted sibling and retries", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [violating, "Use logger.debug(x)."]);
    const ttsr = rules("discard");
    const agent = new AgentSession({ targets: [{ model }], session, ttsr, projectRoot: "/repo" });

    const { events, result } = await drain(agent.prompt("Debug it"));

    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(shape(session)).toEqual([
      ["e1", "message:user", null],
      ["e2", "message:assistant", "e1"],
      // e3 is the stored leaf pointer of the move back, which is not part of the tree.
      ["e4", "custom_message:ttsr-interrupt", "e1"],
      ["e5", "ttsr_injection", "e4"],
      ["e6", "message:assistant", "e5"],
    ]);
    const partial = messageOf(session, "e2");
    expect(partial.stopReason).toBe("aborted");
    const partialText = (partial.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(partialText).toContain("console.log");
    expect(partialText.length).toBeLessThan(violating.blocks[0]?.text.length ?? 0);
    expect(session.getLeafId()).toBe("e6");
    expect(session.getBranch().map((e) => e.id)).toEqual(["e1", "e4", "e5", "e6"]);

    const reminder = session.getEntry("e4") as CustomMessageEntry;
    expect(reminder).toMatchObject({ customType: TTSR_INTERRUPT_CUSTOM_TYPE, display: false });
    expect(reminder.content).toContain('rule="no-console" path=".arbor/rules/no-console.md"');
    expect((session.getEntry("e5") as TtsrInjectionEntry).injectedRules).toEqual([
      { rule: "no-console", turn: 0, interrupt: 0 },
    ]);
    // The retry sees the reminder, not the aborted answer.
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "user"]);
    expect(session.buildSessionContext().messages.map((m) => m.role)).toEqual([
      "user",
      "custom",
      "assistant",
    ]);
    expect(events.filter((e) => e.type === "ttsr_triggered")).toEqual([
      {
        type: "ttsr_triggered",
        turnIndex: 0,
        // The rule whole, not only its name.
        rules: [
          expect.objectContaining({
            name: "no-console",
            path: "/repo/.arbor/rules/no-console.md",
            content: expect.any(String),
            scope: expect.any(Array),
          }),
        ],
        contextMode: "discard",
        interrupted: true,
        partialEntryId: "e2",
      },
    ]);
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });

  it("keep: leaves the partial answer on the path", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [violating, "Fixed."]);
    const agent = new AgentSession({ targets: [{ model }], session, ttsr: rules("keep") });

    const { result } = await drain(agent.prompt("Debug it"));

    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(shape(session)).toEqual([
      ["e1", "message:user", null],
      ["e2", "message:assistant", "e1"],
      ["e3", "custom_message:ttsr-interrupt", "e2"],
      ["e4", "ttsr_injection", "e3"],
      ["e5", "message:assistant", "e4"],
    ]);
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("checks tool-call argument deltas too, and fires a rule once (repeat once)", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      {
        blocks: [
          { type: "toolCall", id: "c1", name: "write", arguments: { text: "console.log(1)" } },
        ],
        chunkSize: 4,
      },
      { blocks: [{ type: "text", text: "console.log is fine now" }] },
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, ttsr: rules("discard") });

    const { result } = await drain(agent.prompt("Write"));

    expect(result).toMatchObject({ success: true, turns: 1 });
    const injections = session.getEntries().filter((e) => e.type === "ttsr_injection");
    expect(injections).toHaveLength(1);
    // The cut tool call never completed, so it is not stored.
    expect(messageOf(session, "e2")).toMatchObject({ stopReason: "aborted", content: [] });
  });
});

describe("AgentSession: rules that never interrupt", () => {
  it("lets the answer finish and injects the reminder after the turn's tool results", async () => {
    const session = await memorySession();
    const ttsr = new TtsrManager();
    ttsr.addRule({
      name: "no-console",
      content: "Use the logger.",
      condition: "console\\.log",
      interruptMode: "never",
    });
    const model = scripted("alpha", [
      {
        blocks: [
          { type: "text", text: "I will console.log it" },
          { type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 1 } },
        ],
      },
      "Done.",
    ]);
    const agent = new AgentSession({ targets: [{ model }], session, ttsr, tools: [addTool] });

    const { events, result } = await drain(agent.prompt("Go"));

    expect(result).toMatchObject({ success: true, turns: 2 });
    expect(shape(session).map(([, kind]) => kind)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      "custom_message:ttsr-interrupt",
      "ttsr_injection",
      "message:assistant",
    ]);
    expect(messageOf(session, "e2").stopReason).toBe("tool_use");
    expect(model.requests[1]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
    ]);
    expect(events.filter((e) => e.type === "ttsr_triggered")).toEqual([
      {
        type: "ttsr_triggered",
        turnIndex: 0,
        // The rule whole, not only its name.
        rules: [
          {
            name: "no-console",
            content: "Use the logger.",
            scope: ["text", "tool"],
            interruptMode: "never",
            contextMode: "discard",
          },
        ],
        contextMode: "keep",
        interrupted: false,
      },
    ]);
  });
});

describe("AgentSession: stream rules across a reload", () => {
  it("restores injection records, so a `once` rule does not fire again", async () => {
    const session = await memorySession();
    const first = scripted("alpha", [violating, "Fixed."]);
    await drain(
      new AgentSession({ targets: [{ model: first }], session, ttsr: rules("discard") }).prompt(
        "One",
      ),
    );

    // A new process: a fresh manager with the same rules, over the same session.
    const fresh = rules("discard");
    const second = scripted("alpha", [violating]);
    const { events, result } = await drain(
      new AgentSession({ targets: [{ model: second }], session, ttsr: fresh }).prompt("Two"),
    );

    expect(result).toMatchObject({ success: true, turns: 1 });
    expect(fresh.turn).toBe(2);
    expect(events.some((e) => e.type === "ttsr_triggered")).toBe(false);
    expect(session.getEntries().filter((e) => e.type === "ttsr_injection")).toHaveLength(1);
  });
});
