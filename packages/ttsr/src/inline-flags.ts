/** A regular expression split into the parts `new RegExp(source, flags)` takes. */
export interface RegexParts {
  source: string;
  flags: string;
}

const supportedInlineFlags = new Set(["i", "m", "s", "u"]);

/**
 * Translates a leading PCRE inline flag group such as `(?i)` or `(?is)` into JavaScript
 * flags, since rule files written for other tools use that syntax and `RegExp` rejects it.
 * @throws Error naming the flag when the group holds a flag JavaScript has no equivalent for
 */
export function translateInlineFlags(pattern: string, flags = ""): RegexParts {
  const match = /^\(\?([a-zA-Z]+)\)/.exec(pattern);
  if (!match?.[1]) return { source: pattern, flags };
  const merged = new Set(flags);
  for (const flag of match[1]) {
    if (!supportedInlineFlags.has(flag)) {
      throw new Error(`unsupported inline flag "${flag}" in ${pattern}: use one of i, m, s, u`);
    }
    merged.add(flag);
  }
  return { source: pattern.slice(match[0].length), flags: [...merged].sort().join("") };
}
