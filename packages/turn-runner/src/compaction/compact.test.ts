import type { ModelRequest } from "@arbor/providers";
import type { AgentMessage, Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { memorySession, scripted } from "../../test/factories.js";
import { toModelMessages } from "../context-messages.js";
import { compact } from "./compact.js";
import {
  INITIAL_SUMMARY_PROMPT,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_PREFIX_PROMPT,
  UPDATE_SUMMARY_PROMPT,
} from "./prompts.js";
import { SummaryError } from "./summary-error.js";

const words = (tokens: number, letter = "w") => letter.repeat(tokens * 4);

const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string, calls: Array<[string, string, Record<string, unknown>]> = []) => ({
  role: "assistant",
  content: [
    ...(text ? [{ type: "text", text }] : []),
    ...calls.map(([id, name, args]) => ({ type: "toolCall", id, name, arguments: args })),
  ],
  stopReason: calls.length > 0 ? "tool_use" : "stop",
  provider: "alpha",
  model: "alpha-model",
  timestamp: 1,
});
const result = (id: string, name: string, text: string): AgentMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError: false,
  timestamp: 1,
});

async function append(session: Session, messages: AgentMessage[]): Promise<string[]> {
  const ids: string[] = [];
  for (const message of messages) ids.push(await session.appendMessage(message));
  return ids;
}

const promptOf = (request: ModelRequest | undefined): string => {
  const content = request?.messages[0]?.content;
  return typeof content === "string" ? content : "";
};

/** Two finished turns, the first reading and editing files with a long tool output. */
async function twoTurns(session: Session) {
  return append(session, [
    user(`Fix the parser ${words(50)}`),
    answer("", [
      ["c1", "read", { path: "src/parser.ts" }],
      ["c2", "edit", { path: "src/lexer.ts" }],
    ]),
    result("c1", "read", words(2000, "r")),
    result("c2", "edit", "edited"),
    answer(`Fixed it ${words(50)}`),
    user(`Now the tests ${words(100)}`),
    answer(`Tests pass ${words(100)}`),
  ]);
}

describe("compact", () => {
  it("summarizes with the summarizer prompt and instructions, and stores a pi-style entry", async () => {
    const session = await memorySession();
    const ids = await twoTurns(session);
    const before = session.buildSessionContext();
    const model = scripted("alpha", ["## Goal\nFix the parser"]);
    let seenAfter = "";
    const outcome = await compact({
      session,
      model,
      settings: { keepRecentTokens: 150 },
      customInstructions: "Keep the lexer details",
      afterCompact: (done) => {
        seenAfter = done.entryId;
      },
    });

    expect(outcome).toMatchObject({
      status: "compacted",
      reason: "manual",
      firstKeptEntryId: ids[5],
      fromHook: false,
      details: { readFiles: ["src/parser.ts"], modifiedFiles: ["src/lexer.ts"] },
    });
    if (outcome.status !== "compacted") return;
    expect(seenAfter).toBe(outcome.entryId);
    const request = model.requests[0];
    expect(request?.system).toBe(SUMMARIZER_SYSTEM_PROMPT);
    expect(request?.tools).toBeUndefined();
    const prompt = promptOf(request);
    expect(prompt).toContain("[User]: Fix the parser");
    expect(prompt).toContain("[Tool result read]: rrrr");
    expect(prompt).toContain("more characters left out");
    expect(prompt).not.toContain(words(2000, "r"));
    expect(prompt).toContain(INITIAL_SUMMARY_PROMPT);
    expect(prompt).toContain("Keep the lexer details");
    expect(prompt).not.toContain("Now the tests");

    const entry = session.getEntry(outcome.entryId);
    expect(entry).toMatchObject({
      type: "compaction",
      parentId: ids[6],
      firstKeptEntryId: ids[5],
      summary: expect.stringContaining("## Goal\nFix the parser"),
      details: { readFiles: ["src/parser.ts"], modifiedFiles: ["src/lexer.ts"] },
    });
    expect((entry as { tokensBefore: number }).tokensBefore).toBeGreaterThan(2000);
    expect(outcome.summary).toContain("<edited-files>\nsrc/lexer.ts\n</edited-files>");

    const after = session.buildSessionContext();
    expect(after.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "assistant"]);
    // The model reads the summary as earlier conversation, never as a user request.
    const sent = toModelMessages(after.messages)[0];
    expect(sent?.role).toBe("user");
    expect(String(sent?.content)).toMatch(
      /^This is a summary of the conversation before this point;[^\n]*not a request from the user[^\n]*\n\n<summary>\n## Goal/,
    );

    // Undo: the entry before the compaction holds the uncompacted context.
    await session.branch(ids[6] as string);
    expect(session.buildSessionContext()).toEqual(before);
  });

  it("summarizes the prefix of a cut turn separately", async () => {
    const session = await memorySession();
    const ids = await append(session, [
      user(`First ${words(100)}`),
      answer(`Done ${words(100)}`),
      user(`Second ${words(10)}`),
      answer("", [["c1", "read", { path: "big.txt" }]]),
      result("c1", "read", words(300)),
      answer(`Working ${words(50)}`),
    ]);
    const model = scripted("alpha", ["history summary", "prefix summary"]);
    const outcome = await compact({ session, model, settings: { keepRecentTokens: 40 } });
    expect(outcome).toMatchObject({ status: "compacted", firstKeptEntryId: ids[5] });
    expect(model.requests).toHaveLength(2);
    expect(outcome).toMatchObject({ usage: { input: 20, output: 10 } });
    expect(promptOf(model.requests[0])).toContain("[User]: First");
    expect(promptOf(model.requests[0])).not.toContain("[User]: Second");
    expect(promptOf(model.requests[1])).toContain(TURN_PREFIX_PROMPT);
    expect(promptOf(model.requests[1])).toContain("[User]: Second");
    if (outcome.status !== "compacted") return;
    expect(outcome.summary).toMatch(
      /^history summary\n\n---\n\n## Beginning of the current turn\n\nprefix summary/,
    );
  });

  it("updates the previous summary when compacting again, carrying files forward", async () => {
    const session = await memorySession();
    await twoTurns(session);
    const model = scripted("alpha", ["first summary", "second summary"]);
    await compact({ session, model, settings: { keepRecentTokens: 150 } });
    await append(session, [
      user(`Third ${words(200)}`),
      answer(`Third done ${words(200)}`, [["c3", "read", { path: "docs/a.md" }]]),
      result("c3", "read", "doc"),
      user(`Fourth ${words(100)}`),
      answer(`Fourth done ${words(100)}`),
    ]);
    const outcome = await compact({ session, model, settings: { keepRecentTokens: 150 } });
    const prompt = promptOf(model.requests[1]);
    expect(prompt).toContain(UPDATE_SUMMARY_PROMPT);
    expect(prompt).toContain("<previous-summary>\nfirst summary\n</previous-summary>");
    expect(prompt).toContain("[User]: Now the tests");
    expect(prompt).toContain("[User]: Third");
    expect(prompt).not.toContain("[User]: Fix the parser");
    expect(outcome).toMatchObject({
      status: "compacted",
      details: { readFiles: ["docs/a.md", "src/parser.ts"], modifiedFiles: ["src/lexer.ts"] },
    });
    const context = session.buildSessionContext();
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary" });
    const summary = String(context.messages[0]?.summary);
    expect(summary).toMatch(/^second summary/);
    expect(summary.match(/<read-files>/g)).toHaveLength(1);
    expect(summary).toContain("<read-files>\ndocs/a.md\nsrc/parser.ts\n</read-files>");
  });

  it("does nothing when disabled, and nothing without enough to summarize", async () => {
    const session = await memorySession();
    await twoTurns(session);
    const model = scripted("alpha", []);
    const entries = session.getEntries().length;
    expect(
      await compact({ session, model, settings: { enabled: false, keepRecentTokens: 1 } }),
    ).toEqual({ status: "disabled", reason: "manual" });
    expect(await compact({ session, model, reason: "threshold" })).toEqual({
      status: "nothing_to_compact",
      reason: "threshold",
    });
    expect(session.getEntries()).toHaveLength(entries);
    expect(model.requests).toHaveLength(0);
  });

  it("lets a hook cancel or supply the summary", async () => {
    const session = await memorySession();
    await twoTurns(session);
    const model = scripted("alpha", []);
    const seen: string[] = [];
    const cancelled = await compact({
      session,
      model,
      settings: { keepRecentTokens: 150 },
      beforeCompact: (prep) => {
        seen.push(`${prep.reason}:${prep.messagesToSummarize.length}:${prep.firstKeptEntryId}`);
        return { cancel: true };
      },
    });
    expect(cancelled).toEqual({ status: "cancelled", reason: "manual" });
    expect(seen).toEqual(["manual:5:e6"]);
    const supplied = await compact({
      session,
      model,
      settings: { keepRecentTokens: 150 },
      beforeCompact: () => ({ summary: "from an extension", details: { mine: true } }),
    });
    expect(supplied).toMatchObject({ status: "compacted", fromHook: true });
    expect(session.getLeafEntry()).toMatchObject({
      type: "compaction",
      summary: "from an extension",
      details: { mine: true },
      fromHook: true,
    });
    expect(model.requests).toHaveLength(0);
  });

  it("refuses an empty summary and leaves the session unchanged", async () => {
    const session = await memorySession();
    await twoTurns(session);
    const entries = session.getEntries().length;
    const model = scripted("alpha", ["   \n  "]);
    const error = await compact({ session, model, settings: { keepRecentTokens: 150 } }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: "SummaryError", code: "empty_summary" });
    expect(session.getEntries()).toHaveLength(entries);
  });

  it("leaves the session unchanged when the model fails", async () => {
    const session = await memorySession();
    await twoTurns(session);
    const leaf = session.getLeafId();
    const model = scripted("alpha", [
      { blocks: [], error: { kind: "model_error", message: "boom" } },
    ]);
    const error = await compact({ session, model, settings: { keepRecentTokens: 150 } }).catch(
      (e: unknown) => e,
    );
    expect(SummaryError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "model_error", kind: "model_error" });
    expect(session.getLeafId()).toBe(leaf);
  });
});
