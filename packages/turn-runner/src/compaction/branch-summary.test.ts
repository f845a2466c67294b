import type { AgentMessage } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { memorySession, scripted } from "../../test/factories.js";
import { summarizeAbandonedBranch } from "./branch-summary.js";
import { BRANCH_SUMMARY_PROMPT, SUMMARIZER_SYSTEM_PROMPT } from "./prompts.js";

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string): AgentMessage => ({
  role: "assistant",
  content: [
    { type: "text", text },
    { type: "toolCall", id: `c-${text.length}`, name: "write", arguments: { path: "x.ts" } },
  ],
  stopReason: "stop",
  timestamp: 1,
});

describe("summarizeAbandonedBranch", () => {
  it("summarizes the branch back to the common ancestor, newest first within the budget", async () => {
    const session = await memorySession();
    const root = await session.appendMessage(user("start"));
    await session.appendMessage(user(`old try ${"o".repeat(400)}`));
    await session.appendMessage(answer("tried approach A"));
    await session.appendMessage(user("it failed with E42"));
    const model = scripted("alpha", ["A fails with E42"]);
    const summary = await summarizeAbandonedBranch({
      session,
      model,
      targetId: root,
      maxTokens: 30,
    });
    expect(summary).toEqual({
      summary: expect.stringMatching(/^A fails with E42\n\n<modified-files>\nx.ts\n/),
      details: { readFiles: [], modifiedFiles: ["x.ts"] },
      fromHook: false,
    });
    const request = model.requests[0];
    expect(request?.system).toBe(SUMMARIZER_SYSTEM_PROMPT);
    const prompt = String(request?.messages[0]?.content);
    expect(prompt).toContain("[User]: it failed with E42");
    expect(prompt).toContain("[Assistant]: tried approach A");
    expect(prompt).not.toContain("old try");
    expect(prompt).toContain(BRANCH_SUMMARY_PROMPT);
    expect(prompt).toContain("1 older messages of the branch were left out");
  });

  it("returns nothing when no branch is left, or when a hook cancels; a hook may supply it", async () => {
    const session = await memorySession();
    const root = await session.appendMessage(user("start"));
    await session.appendMessage(user("more"));
    const model = scripted("alpha", []);
    const leaf = session.getLeafId() as string;
    expect(await summarizeAbandonedBranch({ session, model, targetId: leaf })).toBeUndefined();
    expect(
      await summarizeAbandonedBranch({
        session,
        model,
        targetId: root,
        beforeSummarize: () => ({ cancel: true }),
      }),
    ).toBeUndefined();
    expect(
      await summarizeAbandonedBranch({
        session,
        model,
        targetId: root,
        beforeSummarize: (prep) => ({ summary: `left ${prep.entriesToSummarize.length}` }),
      }),
    ).toEqual({ summary: "left 1", details: { readFiles: [], modifiedFiles: [] }, fromHook: true });
    expect(model.requests).toHaveLength(0);
  });
});
