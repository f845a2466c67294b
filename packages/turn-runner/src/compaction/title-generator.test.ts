import { describe, expect, it } from "vitest";
import { memorySession, scripted } from "../../test/factories.js";
import { TITLE_SYSTEM_PROMPT } from "./prompts.js";
import { cleanTitle, createTitleGenerator, titleWords } from "./title-generator.js";

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

  it("counts and cuts words by Unicode word boundaries, so unspaced scripts are cut too", () => {
    expect(titleWords("修复登录错误")).toEqual(["修复", "登录", "错误"]);
    expect(titleWords("Fix the login bug, now!")).toEqual(["Fix", "the", "login", "bug", "now"]);
    const long = "修复登录错误并且更新用户的数据库连接配置文件和测试";
    const cut = cleanTitle(long);
    expect(long.startsWith(cut)).toBe(true);
    expect(titleWords(cut)).toHaveLength(8);
    // The cut drops the punctuation it leaves at the end.
    expect(cleanTitle("one, two, three, four, five, six, seven, eight, nine")).toBe(
      "one, two, three, four, five, six, seven, eight",
    );
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

  it("asks once more with the word count when the title has fewer than 3 words", async () => {
    const session = await memorySession();
    await session.appendMessage({ role: "user", content: "Fix the login bug please" });
    const model = scripted("alpha", ["Login", "Fixing the login bug"]);
    expect(await session.regenerateTitle(createTitleGenerator(model))).toEqual({
      title: "Fixing the login bug",
    });
    expect(model.requests).toHaveLength(2);
    expect(String(model.requests[1]?.messages[0]?.content)).toContain(
      'Your last title, "Login", has 1 word(s); give 3 to 8.',
    );
  });

  it("keeps the automatic title when the second title is still too short", async () => {
    const session = await memorySession();
    await session.appendMessage({ role: "user", content: "Fix the login bug please" });
    const model = scripted("alpha", ["Login", "Login bug"]);
    const outcome = await session.regenerateTitle(createTitleGenerator(model));
    expect(outcome.title).toBe("Fix the login bug please");
    expect(String(outcome.error)).toContain('the model\'s title "Login bug" has 2 word(s)');
    expect(session.getSessionName()).toBeUndefined();
  });
});
