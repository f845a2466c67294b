import { fdatasync, type Stats, statSync } from "node:fs";
import { SessionFileError } from "../errors/index.js";
import { fileKind } from "./io-errors.js";

/** The one system call an append makes, swappable in tests (a full disk, a failing device). */
export type WriteFn = (fd: number, data: string | Uint8Array) => number;

/** @throws SessionFileError (`not_regular_file`) when the path holds anything but a regular file */
export function requireRegular(path: string, stats: Stats): void {
  if (!stats.isFile()) {
    throw new SessionFileError(path, "not_regular_file", `it is ${fileKind(stats)}`);
  }
}

/** The stats of a path, or undefined when nothing is there. */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Writes all of `text`; a short write (full disk, signals) continues from where it stopped.
 * @returns the number of bytes written
 */
export function writeAll(write: WriteFn, fd: number, text: string): number {
  const written = write(fd, text);
  const length = Buffer.byteLength(text, "utf8");
  if (written === length) return length;
  const bytes = Buffer.from(text, "utf8");
  let offset = written;
  while (offset < bytes.length) offset += write(fd, bytes.subarray(offset));
  return bytes.length;
}

/** `fdatasync` as a promise. */
export function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fdatasync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

/** The message of an error, or the value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
