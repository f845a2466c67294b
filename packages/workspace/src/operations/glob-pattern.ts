/**
 * Turns a glob (`*`, `**`, `?`, `[abc]`, `{a,b}`) into a regular expression over paths with
 * `/` separators. A pattern without `/` matches a file's name in any folder, as ripgrep's
 * `--glob` does; one with `/` matches the path from the searched folder.
 */
export function globMatcher(pattern: string): (relativePath: string) => boolean {
  const anchored = pattern.includes("/");
  const body = globToRegExpSource(pattern.replace(/^\.?\//, ""));
  const regex = new RegExp(`^${body}$`);
  return (relativePath) =>
    anchored
      ? regex.test(relativePath)
      : regex.test(relativePath.slice(relativePath.lastIndexOf("/") + 1));
}

function globToRegExpSource(glob: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        i += 1;
        if (glob[i + 1] === "/") {
          i += 1;
          out += "(?:.*/)?";
        } else out += ".*";
      } else out += "[^/]*";
    } else if (char === "?") out += "[^/]";
    else if (char === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close < 0) out += "\\[";
      else {
        const set = glob
          .slice(i + 1, close)
          .replace(/^!/, "^")
          .replaceAll("\\", "\\\\");
        out += `[${set}]`;
        i = close;
      }
    } else if (char === "{") {
      braces += 1;
      out += "(?:";
    } else if (char === "}" && braces > 0) {
      braces -= 1;
      out += ")";
    } else if (char === "," && braces > 0) out += "|";
    else out += char.replace(/[.+^${}()|\\/]/g, "\\$&");
  }
  return out + ")".repeat(braces);
}
