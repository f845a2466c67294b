import { sessionHeaderSchema } from "../format/entries.js";
import { safeParseJson } from "../format/json-line.js";
import type { LogProblem } from "../format/session-log.js";

/**
 * How a stored log ends, as a writer must know before its first append:
 * - `whole`: every line ends with a newline (or the log is not a session: left alone);
 * - `needs_newline`: the last line is whole JSON that lacks only its newline;
 * - `torn`: the last line was cut short (no newline, not JSON), from `offset` (in bytes).
 */
export type LogTail =
  | { kind: "whole" }
  | { kind: "needs_newline" }
  | { kind: "torn"; offset: number; length: number; line: number };

const NEWLINE = 0x0a;

/**
 * Reads how a log's bytes end. A log whose first line is not a session header is reported
 * `whole`: a storage never changes a file that is not a session (opening it fails anyway).
 */
export function logTail(bytes: Uint8Array): LogTail {
  const length = bytes.length;
  if (length === 0 || bytes[length - 1] === NEWLINE) return { kind: "whole" };
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const firstNewline = buffer.indexOf(NEWLINE);
  const headerEnd = firstNewline === -1 ? length : firstNewline;
  const header = safeParseJson(buffer.toString("utf8", 0, headerEnd));
  if (!header.ok || !sessionHeaderSchema.safeParse(header.value).success) return { kind: "whole" };
  if (firstNewline === -1) return { kind: "needs_newline" };
  const offset = buffer.lastIndexOf(NEWLINE) + 1;
  const last = buffer.toString("utf8", offset);
  if (last.trim() === "") return { kind: "whole" };
  if (safeParseJson(last).ok) return { kind: "needs_newline" };
  let line = 1;
  for (
    let at = buffer.indexOf(NEWLINE);
    at !== -1 && at < offset;
    at = buffer.indexOf(NEWLINE, at + 1)
  )
    line++;
  return { kind: "torn", offset, length: length - offset, line };
}

/** The problem a torn last line is reported as, once the storage kept it aside. */
export function tornTailProblem(
  tail: { line: number; length: number },
  keptIn: string,
): LogProblem {
  return {
    kind: "torn_tail",
    line: tail.line,
    message: `line ${tail.line} was cut short (${tail.length} bytes, no newline); it was set aside before the next append, kept in ${keptIn}`,
  };
}
