import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { SessionImportError } from "./import-errors.js";

/** One line of a JSONL source, without its newline. */
export interface SourceLine {
  /** 1-based line number. */
  line: number;
  text: string;
  /** The last line of the file, not ended by a newline (a writer may still be on it). */
  torn: boolean;
  /** The line was longer than `maxLineBytes`; `text` is empty and the line was not kept. */
  tooLong: boolean;
}

/** Options of {@link readSourceLines}. */
export interface ReadSourceLinesOptions {
  /** Longest line kept, in bytes. Default 256 MiB. */
  maxLineBytes?: number;
}

const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;
const SNIFF_BYTES = 8192;
/** Bytes read at a time: large enough that reading costs few system calls. */
const CHUNK_BYTES = 1024 * 1024;
const OPEN_BRACE = 0x7b;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Reads a JSONL file line by line as a stream, so a file of any size is never held whole.
 * @throws SessionImportError `unreadable` (missing, a folder, no permission) or `binary`
 *   (a NUL byte in the first 8 KiB of a file that does not start with `{`)
 */
export async function* readSourceLines(
  path: string,
  options: ReadSourceLinesOptions = {},
): AsyncGenerator<SourceLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  await assertRegularFile(path);
  const decoder = new TextDecoder();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let lineNumber = 0;
  let sniffed = 0;
  let firstByte: number | undefined;
  const finish = (torn: boolean): SourceLine => {
    lineNumber++;
    const text = tooLong ? "" : decoder.decode(Buffer.concat(pending, pendingBytes));
    const line = { line: lineNumber, text: stripCarriageReturn(text), torn, tooLong };
    pending = [];
    pendingBytes = 0;
    tooLong = false;
    return line;
  };
  try {
    for await (const chunk of createReadStream(path, {
      highWaterMark: CHUNK_BYTES,
    }) as AsyncIterable<Buffer>) {
      if (sniffed < SNIFF_BYTES) {
        const head = chunk.subarray(0, SNIFF_BYTES - sniffed);
        if (sniffed === 0) firstByte = head.find((b) => !WHITESPACE.has(b));
        // A NUL in a JSONL file that starts like one is damage (a crash's zero fill), kept
        // line by line; anywhere else it marks a binary file.
        if (head.includes(0) && firstByte !== OPEN_BRACE) {
          throw new SessionImportError(path, "binary", "it is a binary file, not JSON lines");
        }
        sniffed += head.length;
      }
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        take(chunk.subarray(start, nl));
        yield finish(false);
        start = nl + 1;
      }
      take(chunk.subarray(start));
    }
  } catch (error) {
    if (SessionImportError.isInstance(error)) throw error;
    throw new SessionImportError(path, "unreadable", describeIoError(error), { cause: error });
  }
  if (pendingBytes > 0 || tooLong) yield finish(true);

  function take(part: Buffer): void {
    if (part.length === 0 || tooLong) return;
    if (pendingBytes + part.length > maxLineBytes) {
      tooLong = true;
      pending = [];
      pendingBytes = 0;
      return;
    }
    pending.push(part);
    pendingBytes += part.length;
  }
}

function stripCarriageReturn(text: string): string {
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

async function assertRegularFile(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new SessionImportError(path, "unreadable", describeIoError(error), { cause: error });
  }
  if (!info.isFile()) {
    throw new SessionImportError(path, "unreadable", "it is not a regular file");
  }
}

/** A short, user-facing reason for a failed file operation. */
export function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return "there is no such file or folder";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "it is a folder";
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
