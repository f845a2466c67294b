import { describe, expect, it } from "vitest";
import { memorySession, scripted } from "../../test/factories.js";
import { TITLE_SYSTEM_PROMPT } from "./prompts.js";
import { cleanTitle, createTitleGenerator } from "./title-generator.js";

describe("cleanTitle", () => {
  it("keeps the first line without prefix, quotes, emphasis or final period, at most 8 words", () => {
    expect(cleanTitle('Title: "Fix the login bug."\nmore')).toBe("Fix the login bug");
    expect(cleanTitle("**Réparer le bug de connexion**")).toBe("Réparer le bug de connexion");
    expect(cleanTitle("「修复登录错误」")).toBe("修复登录错误");
    expect(cleanTitle("one two three four five six seven eight nine ten")).toBe(
      "one two three four five six seven eight",
    );
    expect(cleanTitle('  ""  ')).toBe("");
    expect(cleanTitle("\n\n  Title:  Fix\tthe   bug  \n\nExplanation: …")).toBe("Fix the bug");
  });
});

describe("createTitleGenerator with Session.regenerateTitle", () => {
  it("stores the model's cleaned title", async () => {
    const session = await memorySession();
    await session.appendMessage({ role: "user", content: "Wie repariere ich den Login?" });
    await session.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: "Prüfe das Token." }],
    });
    const model = scripted("alpha", ['"Login reparieren und Token prüfen."']);
    const outcome = await session.regenerateTitle(createTitleGenerator(model));
    expect(outcome).toEqual({ title: "Login reparieren und Token prüfen" });
    expect(session.getSessionName()).toBe("Login reparieren und Token prüfen");
    expect(model.requests[0]?.system).toBe(TITLE_SYSTEM_PROMPT);
    expect(String(model.requests[0]?.messages[0]?.content)).toContain(
      "[User]: Wie repariere ich den Login?",
    );
  });

  it("keeps the automatic title when the model fails or answers nothing", async () => {
    const session = await memorySession();
    await session.appendMessage({ role: "user", content: "Fix the login bug please" });
    const model = scripted("alpha", [
      { blocks: [], error: { kind: "network_error", message: "down" } },
      "   ",
    ]);
    const failed = await session.regenerateTitle(createTitleGenerator(model));
    expect(failed.title).toBe("Fix the login bug please");
    expect(failed.error).toBeInstanceOf(Error);
    const empty = await session.regenerateTitle(createTitleGenerator(model));
    expect(empty.error).toBeInstanceOf(Error);
    expect(session.getSessionName()).toBeUndefined();
  });
});
