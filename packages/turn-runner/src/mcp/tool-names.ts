import { createHash } from "node:crypto";

/** The tool names every provider accepts. */
export const MODEL_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

const shortHash = (value: string): string =>
  createHash("sha256").update(value).digest("hex").slice(0, HASH_LENGTH);

/** Replaces every character outside `[a-zA-Z0-9_-]` (per code point) with `_`. */
function replaceDisallowed(value: string): string {
  return Array.from(value, (char) => (/^[a-zA-Z0-9_-]$/.test(char) ? char : "_")).join("");
}

/**
 * The names the model sees for a server's tools: the prefix and the server's name, with
 * characters outside `[a-zA-Z0-9_-]` replaced by `_`. A name that is too long, or that
 * collides with an earlier one (or with `taken`), is cut and ends in a short hash of the
 * server's name, so the same tools get the same names on every connection.
 *
 * @param names - the tools' names as the server lists them, in order
 * @param prefix - put before each name
 * @param taken - names already in use (e.g. by other servers); extended with the results
 * @returns one model name per input name, in the same order, all distinct
 */
export function modelToolNames(
  names: readonly string[],
  prefix: string,
  taken: Set<string> = new Set(),
): string[] {
  return names.map((name) => {
    const plain = replaceDisallowed(`${prefix}${name}`) || "tool";
    let candidate =
      plain.length <= MAX_LENGTH
        ? plain
        : `${plain.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${shortHash(name)}`;
    if (taken.has(candidate)) {
      candidate = `${plain.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${shortHash(name)}`;
    }
    for (let counter = 2; taken.has(candidate); counter++) {
      const suffix = `_${shortHash(name)}${counter}`;
      candidate = `${plain.slice(0, MAX_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(candidate);
    return candidate;
  });
}
