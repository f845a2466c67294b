import { describe, expect, it } from "vitest";
import { analyzePattern } from "./pattern-analysis.js";

const shape = (source: string, flags = "") => {
  const a = analyzePattern(source, flags);
  return { reach: a.reach, lineLocal: a.lineLocal, viable: a.viableSource !== undefined };
};

describe("analyzePattern", () => {
  it("bounds the reach of patterns without unbounded quantifiers", () => {
    expect(shape("console\\.log\\(")).toEqual({ reach: 12, lineLocal: true, viable: true });
    expect(shape("a{2,5}b|xyz")).toEqual({ reach: 6, lineLocal: true, viable: true });
    expect(shape("foo\\nbar")).toEqual({ reach: 7, lineLocal: false, viable: true });
    // In unicode mode one atom may be a surrogate pair: two code units.
    expect(shape("ab", "u").reach).toBe(4);
  });

  it("tells line-local patterns from ones that can cross a line", () => {
    expect(shape("x.*y").lineLocal).toBe(true);
    expect(shape("x.*y", "s").lineLocal).toBe(false);
    expect(shape("a\\s*=").lineLocal).toBe(false);
    expect(shape("a[ \\t]*=").lineLocal).toBe(true);
    expect(shape("[^\\n]z").lineLocal).toBe(false); // [^\n] still matches \r
    expect(shape("a(?=[\\s\\S])").lineLocal).toBe(false);
    expect(shape("^foo$", "m").lineLocal).toBe(true);
  });

  it("rewrites end-reading assertions into their stable forms", () => {
    const stable = (source: string, flags = "") => analyzePattern(source, flags).stableSource;
    expect(stable("\\bany\\b")).toBe("\\b(?=[\\s\\S])any\\b(?=[\\s\\S])");
    expect(stable("done$")).toBe("done(?!)");
    expect(stable("done$", "m")).toBe("done(?=[\\n\\r\\u2028\\u2029])");
    expect(stable("a(?!bc)")).toBe(
      "a(?=[^\\n\\r\\u2028\\u2029]{0,2}[\\n\\r\\u2028\\u2029]|[\\s\\S]{3})(?!bc)",
    );
    expect(stable("a(?!b.*)", "s")).toBeUndefined(); // unbounded negation: block end only
    expect(stable("(?<=x)y")).toBe("(?<=x)y");
  });

  it("gives up on what it cannot bound, conservatively", () => {
    const refs = analyzePattern("(a+)\\1", "");
    expect(refs).toMatchObject({ reach: Number.POSITIVE_INFINITY, lineLocal: false });
    expect(refs.hasGroupReferences).toBe(true);
    expect(refs.viableSource).toBeUndefined();
    expect(analyzePattern("(?<=a+)b", "").lookbehind).toBe(Number.POSITIVE_INFINITY);
  });
});
