import type { BranchSummaryEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { drain, label, memorySession, scripted } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import type { BranchSummaryInput } from "./tree-navigation.js";

/** An empty session and a model with three scripted answers. */
async function twoExchanges() {
  const session = await memorySession();
  const model = scripted("alpha", ["one", "two", "three"]);
  return { session, model };
}

describe("AgentSession.navigateTree()", () => {
  it("moves the leaf so the next prompt continues from the target", async () => {
    const { session, model } = await twoExchanges();
    const agent = new AgentSession({ targets: [{ model }], session });
    await drain(agent.prompt("First"));
    await drain(agent.prompt("Second"));

    const moved = await agent.navigateTree("e2");
    await drain(agent.prompt("Other"));

    expect(moved).toEqual({ oldLeafId: "e4", newLeafId: "e2" });
    expect(session.getBranch().map((entry) => entry.id)).toEqual([
      "e1",
      "e2",
      expect.any(String),
      session.getLeafId(),
    ]);
    expect(session.getBranch()[2]?.parentId).toBe("e2");
    expect(model.requests[2]?.messages.map((m) => m.content)).toEqual([
      "First",
      [{ type: "text", text: "one" }],
      "Other",
    ]);
  });

  it("writes the summary of the branch left as a branch_summary entry", async () => {
    const { session, model } = await twoExchanges();
    const inputs: BranchSummaryInput[] = [];
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      summarizeBranch: async (input) => {
        inputs.push(input);
        return { summary: "Asked a second question.", details: { files: [] } };
      },
    });
    await drain(agent.prompt("First"));
    await drain(agent.prompt("Second"));

    const moved = await agent.navigateTree("e2", { summarize: true, customInstructions: "short" });

    expect(moved).toEqual({ oldLeafId: "e4", newLeafId: "e5", summaryEntryId: "e5" });
    expect(session.getEntry("e5") as BranchSummaryEntry).toMatchObject({
      type: "branch_summary",
      parentId: "e2",
      fromId: "e4",
      summary: "Asked a second question.",
      details: { files: [] },
    });
    expect(inputs).toHaveLength(1);
    expect(inputs[0]).toMatchObject({
      targetId: "e2",
      oldLeafId: "e4",
      customInstructions: "short",
    });
    expect(inputs[0]?.model).toBe(model);
    await drain(agent.prompt("Third"));
    expect(model.requests[2]?.messages.at(-2)).toMatchObject({
      role: "user",
      content: expect.stringContaining("Asked a second question."),
    });
  });

  it("moves without a summary when the summarizer finds nothing to summarize", async () => {
    const { session, model } = await twoExchanges();
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      summarizeBranch: async () => undefined,
    });
    await drain(agent.prompt("First"));
    expect(await agent.navigateTree("e1", { summarize: true })).toEqual({
      oldLeafId: "e2",
      newLeafId: "e1",
    });
    expect(session.getEntries()).toHaveLength(2);
  });

  it("leaves the leaf in place when the summarizer fails", async () => {
    const { session, model } = await twoExchanges();
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      summarizeBranch: async () => {
        throw new Error("summary model down");
      },
    });
    await drain(agent.prompt("First"));
    await expect(agent.navigateTree("e1", { summarize: true })).rejects.toThrow(
      "summary model down",
    );
    expect(session.getLeafId()).toBe("e2");
  });

  it("rejects a summary without a summarizer, an unknown entry, and navigation during a prompt", async () => {
    const { session, model } = await twoExchanges();
    const agent = new AgentSession({ targets: [{ model }], session });
    await drain(agent.prompt("First"));
    await expect(agent.navigateTree("e1", { summarize: true })).rejects.toThrow(
      /needs the `summarizeBranch` option/,
    );
    await expect(agent.navigateTree("nope")).rejects.toThrow(/no entry "nope"/);
    const slow = scripted("beta", [{ blocks: [{ type: "text", text: "x" }], delayMs: 20 }]);
    const busy = new AgentSession({ targets: [{ model: slow }], session });
    const run = busy.prompt("Go");
    await expect(busy.navigateTree("e1")).rejects.toThrow(/while a prompt runs/);
    await drain(run);
    expect(session.getLeafId()).toBe("e4");
  });

  it("starts a new root when moved before the first entry", async () => {
    const { session, model } = await twoExchanges();
    const agent = new AgentSession({ targets: [{ model }], session });
    await drain(agent.prompt("First"));
    await agent.navigateTree(null);
    await drain(agent.prompt("Fresh"));
    const path = session.getBranch();
    expect(path.map((entry) => label(entry))).toEqual(["message:user", "message:assistant"]);
    expect(path[0]?.parentId).toBeNull();
    expect(session.buildSessionContext().messages[0]?.content).toBe("Fresh");
  });
});
