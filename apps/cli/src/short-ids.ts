/** The fewest characters a short id has, as git's abbreviated hashes. */
export const MIN_SHORT_ID_LENGTH = 8;

/**
 * The shortest prefix of each id, at least `minLength` characters, that no other id of the
 * list starts with (as git abbreviates hashes); an id that is a prefix of another stays
 * whole. Every short id typed back (`arbor -s <short>`) finds exactly its session among
 * those listed.
 *
 * @returns each id mapped to its short form
 */
export function shortIds(
  ids: readonly string[],
  minLength = MIN_SHORT_ID_LENGTH,
): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const short = new Map<string, string>();
  sorted.forEach((id, index) => {
    // In sorted order the longest common prefix with any other id is with a neighbour.
    const shared = Math.max(
      commonPrefixLength(id, sorted[index - 1]),
      commonPrefixLength(id, sorted[index + 1]),
    );
    short.set(id, id.slice(0, Math.max(minLength, shared + 1)));
  });
  return short;
}

function commonPrefixLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}
