/** A row of a session read: chunk number (-1: the header), its text, its sequence numbers. */
export type ChunkRow = readonly [chunk: string | number, text: string | null, seqs: string | null];

/**
 * Puts a session read in chunks back in order: the header first, then the chunks by number,
 * each followed by a newline, as pieces the session reads in place (joined, the text of
 * 10,000 messages is one more 11 MB string to copy and collect).
 * `ordered` is false when a chunk's comma-separated sequence numbers are not strictly
 * increasing (its lines came out of order and the read must be repeated with a sort).
 * @returns undefined when there is no header row (no such session)
 */
export function assembleChunks(
  rows: readonly ChunkRow[],
): { content: string[]; ordered: boolean } | undefined {
  if (!rows.some((row) => Number(row[0]) === -1)) return undefined;
  const chunks = rows.filter((row) => row[1] !== null);
  chunks.sort((a, b) => Number(a[0]) - Number(b[0]));
  const content: string[] = [];
  for (const row of chunks) content.push(row[1] as string, "\n");
  return {
    content,
    ordered: chunks.every((row) => row[2] === null || increasing(row[2])),
  };
}

/** Whether a comma-separated list of sequence numbers is strictly increasing. */
function increasing(seqs: string): boolean {
  let previous = Number.NEGATIVE_INFINITY;
  for (const part of seqs.split(",")) {
    const seq = Number(part);
    if (!(seq > previous)) return false;
    previous = seq;
  }
  return true;
}
