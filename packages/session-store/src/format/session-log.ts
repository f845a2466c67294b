import { isAscii } from "node:buffer";
import { SessionFileError } from "../errors/index.js";
import type { IdSet } from "../ids.js";
import {
  knownEntrySchemas,
  type SessionEntry,
  type SessionHeader,
  sessionHeaderSchema,
} from "./entries.js";
import { isJsonObject, safeParseJson } from "./json-line.js";
import { migrateToCurrent } from "./migrations.js";

/**
 * One entry of a session log. Large message lines are indexed from their first bytes and
 * parsed only when read (`raw` holds their text or bytes until then), so opening a session with
 * megabytes of tool output costs a scan, not a parse.
 */
export interface EntryRecord {
  readonly id: string;
  readonly parentId: string | null;
  readonly type: string;
  readonly timestamp: string;
  /** A message's role, when it was read from the line's first bytes. */
  readonly role?: string;
  /** 1-based line of the file (the header is line 1); 0 for an entry not read from a file. */
  readonly line: number;
  entry: SessionEntry | undefined;
  raw: Uint8Array | string | undefined;
}

/** Something wrong with one line of a session file; the other lines are unaffected. */
export interface LogProblem {
  kind:
    | "invalid_json"
    | "invalid_entry"
    | "torn_tail"
    | "duplicate_id"
    /** An entry's parent is in no line of the file; it is shown as a root. */
    | "missing_parent"
    /** Entries whose parents lead round in a loop; the loop's first entry is shown as a root. */
    | "parent_cycle";
  /** 1-based line number in the file. */
  line: number;
  message: string;
  /** The id of an entry recovered from the line despite the problem. */
  recoveredId?: string;
}

/** A session log as read from bytes: header, entries in file order, problems found. */
export interface ParsedLog {
  header: SessionHeader;
  /** The format version the bytes had; below the current one means they were migrated. */
  sourceVersion: number;
  records: EntryRecord[];
  problems: LogProblem[];
  /** A last line cut short (no newline, not JSON), to be set aside before the next append. */
  tornTail: { offset: number; bytes: Uint8Array } | undefined;
  /** The last line is complete JSON but lacks its newline; the next append must add one. */
  needsNewline: boolean;
}

/**
 * Lines longer than this are indexed from their prefix and parsed on first read. Parsing
 * costs mostly per object, not per byte, so a conversation turn of a few KB costs about as
 * much to index and parse later as to parse now, and is nearly always on the context path;
 * laziness pays for the long tool outputs, which a compaction usually leaves behind.
 */
const LAZY_LINE_BYTES = 16 * 1024;
const PREFIX_BYTES = 200;
const messagePrefix =
  /^\{"type":"message","id":"([^"\\]+)","parentId":(null|"[^"\\]+"),"timestamp":"([^"\\]+)",(?:"message":\{"role":"([^"\\]+)")?/;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;

/**
 * Checks a parsed line against the entry schemas.
 * @returns the entry (the very object given, so unknown fields and key order survive) or why it is invalid
 */
export function validateEntry(value: unknown): SessionEntry | string {
  const issue = entrySchemaIssue(value);
  if (!issue) return value as SessionEntry;
  if (!issue.entryType) return issue.reason;
  // Message rules read "field: reason", zod's "field reason" (its messages say what was wrong).
  const separator = issue.entryType === "message" ? ": " : " ";
  return `invalid ${issue.entryType} entry: ${issue.field}${separator}${issue.reason}`.trim();
}

/** Where an entry breaks its schema: the field (dotted path) and why; the type when known. */
export interface EntrySchemaIssue {
  field: string;
  reason: string;
  entryType?: string;
}

/**
 * Checks a value against the entry schemas, without copying it.
 * @returns undefined when it is a valid entry, else the first field that is not
 */
export function entrySchemaIssue(value: unknown): EntrySchemaIssue | undefined {
  if (!isJsonObject(value)) return { field: "", reason: "not a JSON object" };
  const { type, id, parentId, timestamp } = value;
  if (typeof type !== "string" || type === "") return { field: "type", reason: 'missing "type"' };
  if (typeof id !== "string" || id === "") return { field: "id", reason: 'missing "id"' };
  if (parentId !== null && typeof parentId !== "string")
    return { field: "parentId", reason: '"parentId" is neither a string nor null' };
  if (typeof timestamp !== "string") return { field: "timestamp", reason: 'missing "timestamp"' };
  // Messages are most lines of a session: checked by hand against `agentMessageSchema`'s
  // rules, since a zod parse would copy every message only to throw the copy away.
  if (type === "message") {
    const problem = checkMessage(value.message);
    return problem ? { entryType: "message", ...problem } : undefined;
  }
  const schema = knownEntrySchemas[type as keyof typeof knownEntrySchemas];
  if (schema) {
    const result = schema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0];
      return {
        entryType: type,
        field: issue?.path.join(".") || "(root)",
        reason: issue?.message ?? "does not match the schema",
      };
    }
  }
  return undefined;
}

/** The rules of `agentMessageSchema`, without building a copy; undefined when they hold. */
function checkMessage(message: unknown): { field: string; reason: string } | undefined {
  if (!isJsonObject(message)) return { field: "message", reason: "expected an object" };
  if (typeof message.role !== "string" || message.role === "")
    return { field: "message.role", reason: "expected a non-empty string" };
  const { content, timestamp } = message;
  if (content !== undefined && typeof content !== "string") {
    if (!Array.isArray(content))
      return { field: "message.content", reason: "expected a string or an array" };
    for (let i = 0; i < content.length; i++) {
      const block: unknown = content[i];
      if (!isJsonObject(block) || typeof block.type !== "string") {
        return { field: `message.content.${i}`, reason: 'expected an object with a string "type"' };
      }
    }
  }
  if (timestamp !== undefined && !Number.isFinite(timestamp))
    return { field: "message.timestamp", reason: "expected a finite number" };
  return undefined;
}

/** Builds the record of an entry that is already parsed and valid. */
export function recordOf(entry: SessionEntry, line: number): EntryRecord {
  return {
    id: entry.id,
    parentId: entry.parentId,
    type: entry.type,
    timestamp: entry.timestamp,
    role: undefined,
    line,
    entry,
    raw: undefined,
  };
}

/**
 * Parses the lazily kept bytes of a record into its entry.
 * @returns the entry, or a message saying why the line is broken
 */
export function materializeRecord(record: EntryRecord): SessionEntry | string {
  if (record.entry) return record.entry;
  const raw = record.raw;
  const parsed = safeParseJson(typeof raw === "string" ? raw : decoder.decode(raw));
  if (!parsed.ok) return `line ${record.line} is not valid JSON: ${parsed.error}`;
  const entry = validateEntry(parsed.value);
  if (typeof entry === "string") return `line ${record.line}: ${entry}`;
  record.entry = entry;
  record.raw = undefined;
  return entry;
}

const decoder = new TextDecoder("utf-8");

/**
 * Reads a session log (its bytes, or its text when a backend holds it decoded): header,
 * entries and problems. Older formats are
 * migrated in memory. Broken lines are reported in `problems` and never take valid lines
 * with them; a line that holds a torn entry glued to a whole one gives the whole one back.
 * @param path - named in errors only
 * @param generateId - ids for entries of v1 files, which have none
 * @throws SessionFileError when the bytes are not JSONL or the first line is not a session header
 */
export function parseSessionLog(
  content: StoredContent,
  path: string,
  generateId: (taken: IdSet) => string,
): ParsedLog {
  const lines =
    typeof content === "string"
      ? textLineReader(content)
      : content instanceof Uint8Array
        ? lineReader(content)
        : piecesLineReader(content);
  const firstNewline = lines.indexOfNewline(0);
  const headerEnd = firstNewline === -1 ? lines.length : firstNewline;
  const headerText = lines.text(0, headerEnd);
  const headerJson = safeParseJson(headerText);
  if (!headerJson.ok) {
    throw new SessionFileError(path, "not_jsonl", `line 1 is not JSON (${headerJson.error})`);
  }
  const headerResult = sessionHeaderSchema.safeParse(headerJson.value);
  if (!headerResult.success) {
    throw new SessionFileError(
      path,
      "invalid_header",
      'line 1 is not a session header ({"type":"session","id":…,"timestamp":…})',
    );
  }
  const header = headerJson.value as SessionHeader;
  const sourceVersion = header.version ?? 1;
  if (sourceVersion > 3) {
    throw new SessionFileError(
      path,
      "unsupported_version",
      `format version ${sourceVersion} is newer than this Arbor understands (3); upgrade @arbor/session-store`,
    );
  }

  const problems: LogProblem[] = [];
  const log: ParsedLog = {
    header,
    sourceVersion,
    records: [],
    problems,
    tornTail: undefined,
    needsNewline: false,
  };
  if (firstNewline === -1) {
    log.needsNewline = lines.length > 0;
    return log;
  }

  // Old formats are small and need every line parsed to migrate; v3 takes the fast path.
  const oldLines: Record<string, unknown>[] = [];
  let lineNo = 1;
  let start = lines.indexOfNewline(0) + 1;
  while (start < lines.length) {
    lineNo++;
    const newline = lines.indexOfNewline(start);
    const end = newline === -1 ? lines.length : newline;
    const isLast = newline === -1;
    if (lines.isBlank(start, end)) {
      start = end + 1;
      continue;
    }
    if (sourceVersion >= 3 && end - start > LAZY_LINE_BYTES && !isLast) {
      const prefix = messagePrefix.exec(lines.prefix(start, PREFIX_BYTES));
      if (prefix) {
        const [, id = "", parent = "null", timestamp = "", role] = prefix;
        log.records.push({
          id,
          parentId: parent === "null" ? null : parent.slice(1, -1),
          type: "message",
          timestamp,
          role,
          line: lineNo,
          entry: undefined,
          raw: lines.raw(start, end),
        });
        start = end + 1;
        continue;
      }
    }
    const text = lines.text(start, end);
    const parsed = safeParseJson(text);
    if (!parsed.ok) {
      if (isLast) {
        const bytes = lines.bytesFrom(start);
        log.tornTail = { offset: lines.byteOffset(start), bytes };
        problems.push({
          kind: "torn_tail",
          line: lineNo,
          message: `line ${lineNo} was cut short (${bytes.length} bytes, no newline); it is set aside before the next append`,
        });
        break;
      }
      const recovered = recoverGluedEntry(text);
      problems.push({
        kind: "invalid_json",
        line: lineNo,
        message: `line ${lineNo} is not valid JSON (${parsed.error})${recovered ? "; a whole entry at its end was recovered" : ""}`,
        ...(recovered && typeof recovered.id === "string" ? { recoveredId: recovered.id } : {}),
      });
      if (recovered) addParsed(log, recovered, lineNo, oldLines);
    } else {
      if (isLast) log.needsNewline = true;
      addParsed(log, parsed.value, lineNo, oldLines);
    }
    start = end + 1;
  }

  if (sourceVersion < 3) {
    const lines = [header as Record<string, unknown>, ...oldLines];
    migrateToCurrent(lines, generateId);
    for (const value of oldLines) {
      const entry = validateEntry(value);
      if (typeof entry === "string") {
        problems.push({ kind: "invalid_entry", line: 0, message: `migrated entry: ${entry}` });
      } else log.records.push(recordOf(entry, 0));
    }
  }
  return log;
}

function addParsed(
  log: ParsedLog,
  value: unknown,
  line: number,
  oldLines: Record<string, unknown>[],
): void {
  if (log.sourceVersion < 3) {
    if (isJsonObject(value)) oldLines.push(value);
    else
      log.problems.push({
        kind: "invalid_entry",
        line,
        message: `line ${line} is not a JSON object`,
      });
    return;
  }
  const entry = validateEntry(value);
  if (typeof entry === "string") {
    log.problems.push({ kind: "invalid_entry", line, message: `line ${line}: ${entry}` });
    return;
  }
  log.records.push(recordOf(entry, line));
}

/**
 * A writer that died mid-line and a later writer that appended without checking leave a
 * line holding a torn entry followed by a whole one. Finds the whole one at the end.
 */
function recoverGluedEntry(text: string): Record<string, unknown> | undefined {
  let at = text.length;
  for (let tries = 0; tries < 8; tries++) {
    at = text.lastIndexOf('{"type":"', at - 1);
    if (at <= 0) return undefined;
    const parsed = safeParseJson(text.slice(at));
    if (parsed.ok && isJsonObject(parsed.value)) return parsed.value;
  }
  return undefined;
}

/**
 * All-ASCII files up to this size are decoded once as a whole: faster than decoding line by
 * line. Larger files are read line by line, so no second copy of the file is held.
 */
const WHOLE_DECODE_BYTES = 32 * 1024 * 1024;

/**
 * A log's lines as a storage hands them over: bytes as stored, text already decoded, or text
 * in pieces (a database's chunks of rows), the lines in order across the pieces, each piece
 * whole characters (decoded text never ends inside one).
 */
export type StoredContent = Uint8Array | string | readonly string[];

/** The text of a log's stored content, whatever form the storage handed it in. */
export function storedText(content: StoredContent): string {
  if (typeof content === "string") return content;
  if (content instanceof Uint8Array) return Buffer.from(content).toString("utf8");
  return content.join("");
}

/** Lines of a log, addressed by positions in bytes or, for a decoded file, in characters. */
interface LineReader {
  readonly length: number;
  indexOfNewline(from: number): number;
  isBlank(start: number, end: number): boolean;
  prefix(start: number, length: number): string;
  text(start: number, end: number): string;
  raw(start: number, end: number): Uint8Array | string;
  byteOffset(position: number): number;
  /** The bytes from a position to the end. */
  bytesFrom(position: number): Uint8Array;
}

/** Lines of text a backend already holds decoded: read in place, no bytes involved. */
function textLineReader(whole: string): LineReader {
  return {
    length: whole.length,
    indexOfNewline: (from) => whole.indexOf("\n", from),
    // Almost every line starts with "{": only other lines are checked whole.
    isBlank: (start, end) =>
      whole.charCodeAt(start) !== OPEN_BRACE && whole.slice(start, end).trim() === "",
    prefix: (start, length) => whole.slice(start, start + length),
    text: (start, end) => whole.slice(start, end),
    raw: (start, end) => whole.slice(start, end),
    byteOffset: (position) => Buffer.byteLength(whole.slice(0, position), "utf8"),
    bytesFrom: (position) => Buffer.from(whole.slice(position), "utf8"),
  };
}

/**
 * Lines of text a backend holds in pieces (a database's chunks of rows), read in place: a
 * piece is searched and sliced where it is, never joined to the others, so a long log is not
 * copied into one more string before it is parsed. A line that runs over the end of a piece
 * is joined from the pieces it spans. The parser reads forward, so the piece last used is
 * tried first.
 */
function piecesLineReader(pieces: readonly string[]): LineReader {
  if (pieces.length === 1) return textLineReader(pieces[0] as string);
  const starts: number[] = [];
  let length = 0;
  for (const piece of pieces) {
    starts.push(length);
    length += piece.length;
  }
  let at = 0;
  /** The piece holding `position` (0 ≤ position < length). */
  const pieceOf = (position: number): number => {
    while (at + 1 < pieces.length && (starts[at + 1] as number) <= position) at++;
    while (at > 0 && (starts[at] as number) > position) at--;
    return at;
  };
  const text = (start: number, end: number): string => {
    if (start >= end) return "";
    const first = pieceOf(start);
    const base = starts[first] as number;
    const piece = pieces[first] as string;
    if (end <= base + piece.length) return piece.slice(start - base, end - base);
    let out = piece.slice(start - base);
    for (let i = first + 1; i < pieces.length && (starts[i] as number) < end; i++) {
      out += (pieces[i] as string).slice(0, end - (starts[i] as number));
    }
    return out;
  };
  return {
    length,
    indexOfNewline: (from) => {
      if (from >= length) return -1;
      for (let i = pieceOf(from); i < pieces.length; i++) {
        const base = starts[i] as number;
        const found = (pieces[i] as string).indexOf("\n", Math.max(0, from - base));
        if (found !== -1) return base + found;
      }
      return -1;
    },
    isBlank: (start, end) => {
      const first = pieceOf(start);
      const piece = pieces[first] as string;
      return (
        piece.charCodeAt(start - (starts[first] as number)) !== OPEN_BRACE &&
        text(start, end).trim() === ""
      );
    },
    prefix: (start, count) => text(start, Math.min(length, start + count)),
    text,
    raw: text,
    byteOffset: (position) => {
      const i = pieceOf(Math.min(position, length - 1));
      let bytes = 0;
      for (let k = 0; k < i; k++) bytes += Buffer.byteLength(pieces[k] as string, "utf8");
      return bytes + Buffer.byteLength(text(starts[i] as number, position), "utf8");
    },
    bytesFrom: (position) => Buffer.from(text(position, length), "utf8"),
  };
}

function lineReader(bytes: Uint8Array): LineReader {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // An all-ASCII file decodes as latin1 to the same string: a copy instead of a UTF-8
  // decode, several times faster; the check costs a small part of either. A file with any
  // other character is decoded line by line instead: decoded whole, one emoji would make
  // the whole text a two-byte string (twice the memory, and every line slower to parse),
  // while line by line only the lines that hold such characters pay for them.
  if (buffer.length <= WHOLE_DECODE_BYTES && isAscii(buffer)) {
    return textLineReader(buffer.toString("latin1"));
  }
  return {
    length: buffer.length,
    indexOfNewline: (from) => buffer.indexOf(NEWLINE, from),
    isBlank: (start, end) => {
      if (buffer[start] === OPEN_BRACE) return false;
      for (let i = start; i < end; i++) {
        const c = buffer[i];
        if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
      }
      return true;
    },
    // UTF-8: an id or role outside ASCII must read as the parsed line would give it. A
    // character cut at the end spoils only the end, past the fields the prefix is read for.
    prefix: (start, length) => buffer.toString("utf8", start, start + length),
    text: (start, end) => buffer.toString("utf8", start, end),
    raw: (start, end) => buffer.subarray(start, end),
    byteOffset: (position) => position,
    bytesFrom: (position) => buffer.subarray(position),
  };
}
