/*
 * SQLite's write-ahead log (`<db>-wal`), read as the SQLite file format describes it: a
 * 32-byte header (magic, version, page size, checkpoint sequence, two salts, a checksum),
 * then frames of a 24-byte header (page number, the database's size in pages after a commit
 * or 0, the salts, a running checksum) and one page each. A program in WAL mode (opencode)
 * writes its recent transactions there first and copies them into the database later.
 */

const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
/** Magic numbers: checksums over big-endian words (…83) or little-endian words (…82). */
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

/** What applying a write-ahead log did. */
export interface WalApplied {
  /** The database with every committed transaction of the log in it. */
  bytes: Uint8Array;
  /** Transactions applied. */
  commits: number;
  /** Frames after the last whole commit (a transaction being written), left out. */
  uncommittedFrames: number;
}

/**
 * The database as SQLite would read it with its write-ahead log: the pages of every
 * transaction committed in the log written over the database's. Frames that belong to an
 * older generation of the log (other salts), fail their checksum, or follow the last commit
 * are left out, as SQLite leaves them out.
 * @returns undefined when `wal` is not a write-ahead log of pages of `pageSize` bytes
 */
export function applyWal(
  database: Uint8Array,
  wal: Uint8Array,
  pageSize: number,
): WalApplied | undefined {
  if (wal.length < WAL_HEADER_BYTES) return undefined;
  const view = new DataView(wal.buffer, wal.byteOffset, wal.byteLength);
  const magic = view.getUint32(0);
  if (magic !== MAGIC_LITTLE_ENDIAN && magic !== MAGIC_BIG_ENDIAN) return undefined;
  if (view.getUint32(8) !== pageSize) return undefined;
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  let sum = checksum(wal, 0, 24, bigEndian, [0, 0]);
  if (sum[0] !== view.getUint32(24) || sum[1] !== view.getUint32(28)) return undefined;
  const salt1 = view.getUint32(16);
  const salt2 = view.getUint32(20);

  const committed = new Map<number, number>(); // page number → offset of its page data
  const pending = new Map<number, number>();
  let size = Math.floor(database.length / pageSize);
  let commits = 0;
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  for (let at = WAL_HEADER_BYTES; at + frameBytes <= wal.length; at += frameBytes) {
    if (view.getUint32(at + 8) !== salt1 || view.getUint32(at + 12) !== salt2) break;
    sum = checksum(wal, at, 8, bigEndian, sum);
    sum = checksum(wal, at + FRAME_HEADER_BYTES, pageSize, bigEndian, sum);
    if (sum[0] !== view.getUint32(at + 16) || sum[1] !== view.getUint32(at + 20)) break;
    const page = view.getUint32(at);
    if (page === 0) break;
    pending.set(page, at + FRAME_HEADER_BYTES);
    const sizeAfterCommit = view.getUint32(at + 4);
    if (sizeAfterCommit > 0) {
      for (const [p, offset] of pending) committed.set(p, offset);
      pending.clear();
      size = sizeAfterCommit;
      commits++;
    }
  }
  const bytes = new Uint8Array(size * pageSize);
  bytes.set(database.subarray(0, Math.min(database.length, bytes.length)));
  for (const [page, offset] of committed) {
    if (page > size) continue; // a page past the end the last commit gave the database
    bytes.set(wal.subarray(offset, offset + pageSize), (page - 1) * pageSize);
  }
  return { bytes, commits, uncommittedFrames: pending.size };
}

/** SQLite's WAL checksum: a running pair of sums over 32-bit words, two at a time. */
function checksum(
  data: Uint8Array,
  start: number,
  length: number,
  bigEndian: boolean,
  [first, second]: [number, number],
): [number, number] {
  const view = new DataView(data.buffer, data.byteOffset + start, length);
  let s0 = first;
  let s1 = second;
  for (let i = 0; i < length; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}
