import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { unansweredPrompt } from "./unanswered-prompt.js";

async function sessionWith(
  build: (session: Awaited<ReturnType<MemorySessionStore["create"]>>) => Promise<void>,
) {
  const store = new MemorySessionStore();
  const session = await store.create({ cwd: "/project" });
  await build(session);
  return session;
}

const assistant = (text: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text }],
  stopReason: "stop" as const,
  provider: "fake",
  model: "fake-model",
  timestamp: 2,
});

describe("unansweredPrompt", () => {
  it("finds a user message the path ends with, past entries that are not messages", async () => {
    const session = await sessionWith(async (s) => {
      await s.appendMessage({ role: "user", content: "first", timestamp: 1 });
      await s.appendMessage(assistant("one"));
      const id = await s.appendMessage({
        role: "user",
        content: [{ type: "text", text: "second" }],
        timestamp: 3,
      });
      await s.appendLabelChange(id, "mine");
    });
    expect(unansweredPrompt(session)).toMatchObject({ text: "second" });
  });

  it("finds nothing in an empty session or one whose last message is an answer", async () => {
    expect(unansweredPrompt(await sessionWith(async () => undefined))).toBeUndefined();
    const answered = await sessionWith(async (s) => {
      await s.appendMessage({ role: "user", content: "first", timestamp: 1 });
      await s.appendMessage(assistant("one"));
    });
    expect(unansweredPrompt(answered)).toBeUndefined();
  });
});
