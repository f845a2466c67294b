/**
 * Converts a file glob (`*`, `**`, `?`, `{a,b}`, `[abc]`) into a regular expression that
 * matches a whole relative path or any trailing run of its segments, so `src/*.ts` matches
 * both `src/a.ts` and `/home/me/project/src/a.ts`.
 */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:[^/]*/)*" : ".*";
        i += slash ? 2 : 1;
      } else out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) out += "|";
    else if (c === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close === -1) out += "\\[";
      else {
        const body = glob
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        out += `[${body}]`;
        i = close;
      }
    } else out += c.replace(/[.+^$()|\\\]{}]/g, "\\$&");
  }
  out += ")".repeat(braces);
  const anchored = glob.startsWith("/") ? `^${out}$` : `(?:^|/)${out}$`;
  return new RegExp(anchored);
}

/** True when `path` (either slash style) matches the glob. */
export function matchesGlob(glob: RegExp, path: string): boolean {
  return glob.test(path.replace(/\\/g, "/"));
}
