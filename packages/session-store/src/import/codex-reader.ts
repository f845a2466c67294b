import { basename } from "node:path";
import { CURRENT_SESSION_VERSION } from "../format/version.js";
import { CodexConverter } from "./codex-converter.js";
import { type CodexSessionMeta, codexLineSchema, codexSessionMetaSchema } from "./codex-lines.js";
import { SessionImportError } from "./import-errors.js";
import type { ImportedLog } from "./imported-log.js";
import { type ReadSourceLinesOptions, readSourceLines } from "./jsonl-lines.js";
import { isoTime, parseObjectLine } from "./log-builder.js";
import { importedSessionId } from "./session-ids.js";

const RESPONSE_ITEM_TYPES = new Set([
  "message",
  "reasoning",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "local_shell_call",
  "web_search_call",
]);

/**
 * Reads a Codex CLI rollout file as a stream and returns its session. Lines of types this
 * reader does not know (Codex adds some with new versions) are kept as raw custom entries.
 * @throws SessionImportError when the file cannot be read, is binary, or holds no line a
 *   Codex rollout has
 */
export async function readCodexFile(
  path: string,
  options: ReadSourceLinesOptions = {},
): Promise<ImportedLog> {
  const converter = new CodexConverter();
  let meta: CodexSessionMeta | undefined;
  let firstTime: string | undefined;
  let time = new Date(0).toISOString();
  let recognized = 0;
  for await (const source of readSourceLines(path, options)) {
    converter.builder.report.lines++;
    converter.currentText = source.text;
    if (source.tooLong) {
      converter.raw(source.line, "line longer than the largest line kept");
      continue;
    }
    if (source.text.trim() === "") {
      converter.builder.report.blank++;
      continue;
    }
    const parsed = parseObjectLine(source.text);
    if ("error" in parsed) {
      if (source.torn) converter.raw(source.line, `torn last line: ${parsed.error}`, time, true);
      else converter.raw(source.line, parsed.error);
      continue;
    }
    const value = parsed.value;
    time = isoTime(value.timestamp, time);
    firstTime ??= typeof value.timestamp === "string" ? time : undefined;
    // The oldest rollouts start with a bare `{ id, timestamp, instructions }` line.
    if (value.type === undefined && !meta && source.line === 1) {
      const legacy = codexSessionMetaSchema.safeParse(value);
      if (legacy.success) {
        meta = legacy.data;
        recognized++;
        continue;
      }
    }
    const line = codexLineSchema.safeParse(value);
    if (!line.success) {
      converter.raw(source.line, 'no "type" field');
      continue;
    }
    const { type, payload } = line.data;
    if (RESPONSE_ITEM_TYPES.has(type) && payload === undefined) {
      recognized++;
      converter.responseItem(value, source.line, time); // older rollouts: the item is the line
      continue;
    }
    switch (type) {
      case "session_meta": {
        const parsedMeta = codexSessionMetaSchema.safeParse(payload);
        recognized++;
        if (!meta && parsedMeta.success) meta = parsedMeta.data;
        else converter.keep("codex.session_meta", payload, source.line, time);
        break;
      }
      case "turn_context":
        recognized++;
        converter.turnContext(payload, source.line, time);
        break;
      case "response_item":
        recognized++;
        converter.responseItem(payload, source.line, time);
        break;
      case "event_msg":
        recognized++;
        converter.event(payload, source.line, time);
        break;
      case "compacted":
        recognized++;
        converter.compacted(payload, source.line, time);
        break;
      default:
        converter.raw(source.line, `unknown line type "${type}"`, time);
    }
  }
  const report = converter.builder.report;
  if (report.lines === report.blank)
    throw new SessionImportError(path, "empty", "the file holds no lines");
  if (recognized === 0) {
    throw new SessionImportError(path, "not_recognized", "no line of it is a Codex rollout line");
  }
  const sourceId = meta?.id ?? idFromFileName(path);
  return {
    header: {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: importedSessionId("codex", sourceId),
      timestamp: isoTime(meta?.timestamp, firstTime ?? time),
      cwd: meta?.cwd ?? "",
      ...(meta?.forked_from_id
        ? { parentSession: importedSessionId("codex", meta.forked_from_id) }
        : {}),
      importedFrom: {
        tool: "codex",
        sessionId: sourceId,
        path,
        ...(meta?.cli_version ? { version: meta.cli_version } : {}),
      },
    },
    entries: converter.builder.entries,
    report,
    openEntries: converter.builder.openEntries(),
  };
}

/** The session id in a rollout's file name (`rollout-<time>-<uuid>.jsonl`), else the name. */
function idFromFileName(path: string): string {
  const name = basename(path, ".jsonl");
  const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(name);
  return uuid ? uuid[0] : name;
}
