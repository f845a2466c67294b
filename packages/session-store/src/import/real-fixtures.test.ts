import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import {
  importFixture,
  openImported,
  toolResultPairing,
  unansweredToolCalls,
} from "./import-test-util.js";
import type { ImportedLog } from "./imported-log.js";

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return jsonlFiles(path);
      return name.endsWith(".jsonl") ? [path] : [];
    });
}

const claudeFiles = jsonlFiles(importFixture("real", "claude-code"));
const codexFiles = jsonlFiles(importFixture("real", "codex"));

/** Source message ids that ended up in more than one assistant entry (usage counted twice). */
function splitMessages(log: ImportedLog): string[] {
  const seen = new Map<string, number>();
  for (const entry of log.entries) {
    const message = (entry as { message?: { role?: string; responseId?: string } }).message;
    if (message?.role !== "assistant" || !message.responseId) continue;
    seen.set(message.responseId, (seen.get(message.responseId) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}

async function expectSensible(log: ImportedLog): Promise<void> {
  const session = await openImported(log);
  expect(session.problems).toEqual([]);
  expect(session.getTree()).toHaveLength(1);
  expect(session.getEntries()).toHaveLength(log.entries.length);
  // Every path's context: each tool result comes after the call it answers.
  const leaves = session.getEntries().filter((e) => session.getChildren(e.id).length === 0);
  for (const leaf of leaves) {
    const messages = session.buildSessionContext(leaf.id).messages as Record<string, unknown>[];
    expect(toolResultPairing(messages).filter((i) => i === -1)).toEqual([]);
    expect(unansweredToolCalls(messages)).toEqual([]);
  }
  const lines = log.report.lines - log.report.blank;
  expect(log.report.entries + log.report.merged + log.report.duplicates).toBeGreaterThanOrEqual(
    lines,
  );
}

describe("real Claude Code sessions from public repositories", () => {
  it.each(claudeFiles.map((f) => [f.split("/real/")[1], f]))(
    "%s imports whole, with sensible contexts",
    async (_name, file) => {
      const logs = await readClaudeCodeFile(file as string);
      expect(logs.length).toBeGreaterThan(0);
      for (const log of logs) {
        expect(log.report.raw).toBe(0);
        // Each API message is one entry, however many lines (and tool results) it spans.
        expect(splitMessages(log)).toEqual([]);
        await expectSensible(log);
      }
    },
  );

  it("turns the compact_boundary of a long session into a compaction the context starts from", async () => {
    const file = claudeFiles.find((f) => f.endsWith("ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"));
    const [log] = await readClaudeCodeFile(file as string);
    const compaction = log?.entries.find((e) => e.type === "compaction") as {
      summary: string;
      tokensBefore: number;
    };
    expect(compaction.summary.length).toBeGreaterThan(100);
    expect(compaction.tokensBefore).toBeGreaterThan(0);
    const session = await openImported(log as ImportedLog);
    expect(session.buildSessionContext().messages[0]?.role).toBe("compactionSummary");
  });

  it("makes the files under <session>/subagents/ child sessions of that session", async () => {
    const agents = claudeFiles.filter((f) => f.includes("/subagents/"));
    expect(agents.length).toBe(2);
    for (const file of agents) {
      const logs = await readClaudeCodeFile(file);
      expect(logs.map((l) => l.header.parentSession)).toEqual(
        logs.map(() => "claude-code-ae4a77f8-aedd-4bc1-888f-c94edc91af04"),
      );
    }
  });
});

describe("real Codex rollouts from public repositories", () => {
  it.each(codexFiles.map((f) => [f.split("/real/")[1], f]))(
    "%s imports whole, with sensible contexts",
    async (_name, file) => {
      const log = await readCodexFile(file as string);
      expect(log.report.raw).toBe(0);
      expect(log.report.duplicates).toBeGreaterThan(0);
      await expectSensible(log);
    },
  );
});
