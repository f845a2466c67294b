import { open } from "node:fs/promises";

/** The first 16 bytes of every SQLite 3 database file. */
const SQLITE_MAGIC = Buffer.from(`SQLite format 3\0`, "latin1");
/** A database file's header: the magic, then page size, versions and counters. */
export const SQLITE_HEADER_BYTES = 100;

/** What a SQLite file's header says about the file. */
export interface SqliteHeader {
  pageSize: number;
  /** Pages the header says the database has, when that count is valid (SQLite ≥ 3.7.0). */
  pageCount: number | undefined;
}

/** Whether the file starts as a SQLite 3 database does (false when it cannot be read). */
export async function isSqliteFile(path: string): Promise<boolean> {
  const handle = await open(path, "r").catch(() => undefined);
  if (!handle) return false;
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(SQLITE_MAGIC);
  } finally {
    await handle.close();
  }
}

/** The header of a SQLite database held in memory, or undefined when it is not one. */
export function sqliteHeader(bytes: Uint8Array): SqliteHeader | undefined {
  if (bytes.length < SQLITE_HEADER_BYTES) return undefined;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, SQLITE_HEADER_BYTES);
  if (!view.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return undefined;
  const raw = view.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  // The page count at offset 28 is valid when the "version valid for" number at 92 equals
  // the change counter at 24 (writers before 3.7.0 did not keep it).
  const valid = view.readUInt32BE(92) === view.readUInt32BE(24);
  const pageCount = view.readUInt32BE(28);
  return { pageSize, pageCount: valid && pageCount > 0 ? pageCount : undefined };
}
