import { basename } from "node:path";
import { CURRENT_SESSION_VERSION } from "../format/version.js";
import { ClaudeCodeConverter } from "./claude-code-converter.js";
import { CLAUDE_BOOKKEEPING_TYPES, claudeLineSchema } from "./claude-code-lines.js";
import { SessionImportError } from "./import-errors.js";
import type { ImportedLog, ImportReport } from "./imported-log.js";
import { type ReadSourceLinesOptions, readSourceLines } from "./jsonl-lines.js";
import { parseObjectLine } from "./log-builder.js";
import { importedSessionId } from "./session-ids.js";

const EPOCH = new Date(0).toISOString();

interface Conversation {
  converter: ClaudeCodeConverter;
  /** The agent id (or first uuid) naming a sidechain; undefined for the main conversation. */
  sidechain: string | undefined;
  /** Source lines routed to this conversation. */
  lines: number;
}

/**
 * Reads a Claude Code session file (`~/.claude/projects/<cwd>/<session>.jsonl`, or an
 * `agent-*.jsonl` sidechain file) as a stream and returns its sessions: the main
 * conversation (when the file has one) and one child session per sidechain, linked to it
 * through `parentSession`.
 * @throws SessionImportError when the file cannot be read, is binary, or holds no line
 *   Claude Code writes
 */
export async function readClaudeCodeFile(
  path: string,
  options: ReadSourceLinesOptions = {},
): Promise<ImportedLog[]> {
  const toolNames = new Map<string, string>();
  const main: Conversation = {
    converter: new ClaudeCodeConverter(toolNames),
    sidechain: undefined,
    lines: 0,
  };
  const sidechains = new Map<string, Conversation>();
  const sidechainOf = new Map<string, Conversation>();
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let version: string | undefined;
  let firstTime: string | undefined;
  let lines = 0;
  let blank = 0;
  let recognized = 0;
  let last: Conversation = main;

  for await (const source of readSourceLines(path, options)) {
    lines++;
    if (source.tooLong) {
      last.lines++;
      last.converter.addRaw(source.line, "", "line longer than the largest line kept");
      continue;
    }
    if (source.text.trim() === "") {
      blank++;
      main.lines++;
      continue;
    }
    const parsed = parseObjectLine(source.text);
    const line = "value" in parsed ? claudeLineSchema.safeParse(parsed.value) : undefined;
    if (!line?.success) {
      last.lines++;
      const reason = "error" in parsed ? parsed.error : 'no "type" field';
      last.converter.addRaw(
        source.line,
        source.text,
        source.torn ? `torn last line: ${reason}` : reason,
        source.torn,
      );
      continue;
    }
    const data = line.data;
    if (isClaudeLine(data)) recognized++;
    sessionId ??= data.sessionId;
    cwd ??= data.cwd;
    version = data.version ?? version;
    firstTime ??= data.timestamp;
    let target = main;
    if (data.isSidechain === true) {
      const parentChain = data.parentUuid ? sidechainOf.get(data.parentUuid) : undefined;
      const key = data.agentId ?? parentChain?.sidechain ?? data.uuid ?? `line-${source.line}`;
      target = sidechains.get(key) ?? parentChain ?? newSidechain(key);
    }
    if (data.uuid) sidechainOf.set(data.uuid, target);
    last = target;
    target.lines++;
    if (isKnownType(data.type)) target.converter.addLine(data, source.line);
    else target.converter.addRaw(source.line, source.text, `unknown line type "${data.type}"`);
  }
  if (lines === blank) throw new SessionImportError(path, "empty", "the file holds no lines");
  if (recognized === 0) {
    throw new SessionImportError(
      path,
      "not_recognized",
      "no line of it is a Claude Code session line",
    );
  }

  const id = sessionId ?? basename(path, ".jsonl");
  const mainId = importedSessionId("claude-code", id);
  const time = firstTime ?? EPOCH;
  const logs: ImportedLog[] = [];
  const build = (
    conversation: Conversation,
    sessionKey: string,
    parentSession?: string,
  ): ImportedLog => {
    const report: ImportReport = conversation.converter.builder.report;
    const entries = conversation.converter.builder.entries;
    // Lines before the first one with a time (titles, snapshots) take the session's start.
    const start =
      conversation.sidechain === undefined
        ? time
        : (entries.find((e) => e.timestamp !== EPOCH)?.timestamp ?? time);
    for (const entry of entries) {
      if (entry.timestamp !== EPOCH) break;
      entry.timestamp = start;
    }
    return {
      header: {
        type: "session",
        version: CURRENT_SESSION_VERSION,
        id: importedSessionId("claude-code", sessionKey),
        timestamp: start,
        cwd: cwd ?? "",
        ...(parentSession ? { parentSession } : {}),
        importedFrom: {
          tool: "claude-code",
          sessionId: sessionKey,
          path,
          ...(version ? { version } : {}),
        },
      },
      entries,
      report,
      // Until a line gives a time, the untimed lines take the epoch, to become the start
      // once one does: they are all still open.
      openEntries:
        firstTime === undefined ? entries.length : conversation.converter.builder.openEntries(),
    };
  };
  if (main.converter.builder.entries.length > 0) {
    const log = build(main, id);
    log.report.lines = main.lines;
    log.report.blank = blank;
    logs.push(log);
  }
  for (const [key, conversation] of sidechains) {
    const log = build(conversation, `${id}/${key}`, mainId);
    log.report.lines = conversation.lines;
    logs.push(log);
  }
  return logs;

  function newSidechain(key: string): Conversation {
    const conversation = {
      converter: new ClaudeCodeConverter(toolNames),
      sidechain: key,
      lines: 0,
    };
    sidechains.set(key, conversation);
    return conversation;
  }
}

const CONVERSATION_TYPES = new Set(["user", "assistant", "system", "summary", "custom-title"]);

function isClaudeLine(line: {
  type: string;
  uuid?: string | undefined;
  sessionId?: string | undefined;
}): boolean {
  return (
    CONVERSATION_TYPES.has(line.type) || line.uuid !== undefined || line.sessionId !== undefined
  );
}

function isKnownType(type: string): boolean {
  return CONVERSATION_TYPES.has(type) || CLAUDE_BOOKKEEPING_TYPES.has(type);
}
