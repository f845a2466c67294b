import { SessionImportError } from "./import-errors.js";
import type { ImportSource } from "./imported-log.js";
import { readSourceLines } from "./jsonl-lines.js";
import { parseObjectLine } from "./log-builder.js";

const CODEX_TYPES = new Set([
  "session_meta",
  "response_item",
  "turn_context",
  "event_msg",
  "compacted",
]);
const CLAUDE_TYPES = new Set(["user", "assistant", "summary", "system", "file-history-snapshot"]);
const SNIFF_LINES = 50;

/**
 * Which tool wrote a JSONL session file, from its first lines: Codex rollouts have
 * `{ type, payload }` lines of Codex's types, Claude Code lines carry `uuid`, `sessionId`
 * or `parentUuid`. Undefined when neither shows in the first 50 lines.
 * @throws SessionImportError when the file cannot be read, is binary or holds no lines
 */
export async function detectSource(path: string): Promise<ImportSource | undefined> {
  let seen = 0;
  for await (const line of readSourceLines(path, { maxLineBytes: 64 * 1024 * 1024 })) {
    if (!line.tooLong && line.text.trim() === "") continue;
    if (++seen > SNIFF_LINES) break;
    if (line.tooLong) continue;
    const parsed = parseObjectLine(line.text);
    if ("error" in parsed) continue;
    const value = parsed.value;
    if (typeof value.type === "string" && CODEX_TYPES.has(value.type) && "payload" in value)
      return "codex";
    if ("parentUuid" in value || "sessionId" in value || "uuid" in value) return "claude-code";
    if (typeof value.type === "string" && CLAUDE_TYPES.has(value.type) && "message" in value)
      return "claude-code";
    if (line.line === 1 && value.type === undefined && "instructions" in value) return "codex";
  }
  if (seen === 0) throw new SessionImportError(path, "empty", "the file holds no lines");
  return undefined;
}
