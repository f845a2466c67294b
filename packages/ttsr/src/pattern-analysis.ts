/**
 * Static analysis of a JavaScript regular expression source, for the incremental matcher.
 *
 * It answers three questions conservatively (an over-estimate is always safe):
 * - how far past its start can a match look (`reach`: consumed characters plus lookahead
 *   peeks, in UTF-16 code units), so that a rescan can start `reach` characters back;
 * - can a match (or a lookahead inside it) touch a line terminator (`lineLocal` is false);
 * - what is the *stable* form of the pattern: a rewrite that matches a prefix only when the
 *   original matches every extension of that prefix (assertions that read the end of the
 *   text, such as `$`, `\b` or a negative lookahead, are made to wait for enough text).
 */

/** What the matcher needs to know about one pattern. */
export interface PatternAnalysis {
  /** The stable rewrite, or `undefined` when the pattern can only be judged at block end. */
  stableSource: string | undefined;
  /** Upper bound on how far past a match's start the stable pattern reads; may be Infinity. */
  reach: number;
  /** Upper bound on how far before a position a lookbehind reads; may be Infinity. */
  lookbehind: number;
  /** True when no part of a match, lookaheads included, can read a line terminator. */
  lineLocal: boolean;
  /** True when the pattern holds back references, named groups or numbered escapes. */
  hasGroupReferences: boolean;
  /**
   * A pattern that matches at a position iff the text from there to the end could still
   * grow into a match (an over-approximation: it may say yes too often, never too rarely).
   * `undefined` for patterns with lookarounds or back references.
   */
  viableSource: string | undefined;
}

const lineTerminators = ["\n", "\r", "\u2028", "\u2029"];
const terminatorClass = "[\\n\\r\\u2028\\u2029]";
const quantifierPattern = /^\{(\d+)(?:(,)(\d*))?\}/;

interface Node {
  out: string;
  /** Most characters consumed. */
  consume: number;
  /** Furthest character read, relative to the start, lookaheads included. */
  reach: number;
  lookbehind: number;
  crosses: boolean;
  /** A construct whose truth depends on characters not yet seen, with no stable form. */
  unstable: boolean;
  /** Holds an assertion or lookahead that reads at or past its own position. */
  peeks: boolean;
  /** The pattern with end-reading assertions relaxed to also hold at the end of the text. */
  loose: string;
  /** Matches a prefix of a `loose` match that runs into the end of the text. */
  partial: string;
  /** Holds a lookaround or a back reference, for which no `partial` form is built. */
  opaque: boolean;
}

const atEnd = "(?![\\s\\S])";

const empty = (): Node => ({
  loose: "",
  partial: atEnd,
  opaque: false,
  out: "",
  consume: 0,
  reach: 0,
  lookbehind: 0,
  crosses: false,
  unstable: false,
  peeks: false,
});

class Parser {
  i = 0;
  groupRefs = false;
  private readonly unicode: boolean;
  private readonly multiline: boolean;
  private readonly atomFlags: string;

  constructor(
    private readonly src: string,
    flags: string,
    private readonly lineLocal: boolean,
  ) {
    this.unicode = flags.includes("u") || flags.includes("v");
    this.multiline = flags.includes("m");
    this.atomFlags = [...flags].filter((f) => f === "i" || f === "s" || f === "u").join("");
  }

  /** `negative` is true inside a negative lookaround, where nothing may be rewritten. */
  disjunction(negative: boolean): Node {
    const alternatives = [this.alternative(negative)];
    while (this.src[this.i] === "|") {
      this.i++;
      alternatives.push(this.alternative(negative));
    }
    return {
      out: alternatives.map((a) => a.out).join("|"),
      consume: Math.max(...alternatives.map((a) => a.consume)),
      reach: Math.max(...alternatives.map((a) => a.reach)),
      lookbehind: Math.max(...alternatives.map((a) => a.lookbehind)),
      crosses: alternatives.some((a) => a.crosses),
      unstable: alternatives.some((a) => a.unstable),
      peeks: alternatives.some((a) => a.peeks),
      loose: alternatives.map((a) => a.loose).join("|"),
      partial: alternatives.map((a) => `(?:${a.partial})`).join("|"),
      opaque: alternatives.some((a) => a.opaque),
    };
  }

  private alternative(negative: boolean): Node {
    const seq = empty();
    const terms: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== "|" && this.src[this.i] !== ")") {
      const term = this.quantified(this.term(negative));
      terms.push(term);
      seq.loose += term.loose;
      seq.opaque ||= term.opaque;
      seq.reach = Math.max(seq.reach, seq.consume + term.reach);
      // Measured from the term's own position, which only over-estimates from the start.
      seq.lookbehind = Math.max(seq.lookbehind, term.lookbehind);
      seq.consume += term.consume;
      seq.out += term.out;
      seq.crosses ||= term.crosses;
      seq.unstable ||= term.unstable;
      seq.peeks ||= term.peeks;
    }
    // A prefix of a sequence is a prefix of its first term, or all of it then a prefix of
    // the rest; nested from the end so the size stays linear.
    let partial = atEnd;
    for (let k = terms.length - 1; k >= 0; k--) {
      const t = terms[k] as Node;
      partial = k === terms.length - 1 ? t.partial : `(?:${t.partial})|${t.loose}(?:${partial})`;
    }
    seq.partial = terms.length === 0 ? atEnd : partial;
    return seq;
  }

  private quantified(atom: Node): Node {
    const c = this.src[this.i];
    let max: number;
    let text: string;
    if (c === "*" || c === "+" || c === "?") {
      max = c === "?" ? 1 : Number.POSITIVE_INFINITY;
      text = c;
    } else if (c === "{") {
      const m = quantifierPattern.exec(this.src.slice(this.i));
      if (!m) return atom;
      max = m[2] ? (m[3] ? Number(m[3]) : Number.POSITIVE_INFINITY) : Number(m[1]);
      text = m[0];
    } else {
      return atom;
    }
    this.i += text.length;
    if (this.src[this.i] === "?") {
      text += "?";
      this.i++;
    }
    const times = max === 0 ? 0 : max;
    const repeatLoose = `(?:${atom.loose})`;
    const before =
      max === Number.POSITIVE_INFINITY
        ? `${repeatLoose}*`
        : max > 1
          ? `${repeatLoose}{0,${max - 1}}`
          : "";
    return {
      ...atom,
      loose: `${repeatLoose}${text}`,
      partial: max === 0 ? atEnd : `${before}(?:${atom.partial})`,
      out: `${atom.out}${text}`,
      consume: times === 0 ? 0 : atom.consume === 0 ? 0 : atom.consume * times,
      reach:
        times === 0 ? 0 : atom.consume === 0 ? atom.reach : atom.consume * (times - 1) + atom.reach,
      lookbehind: times === 0 ? 0 : atom.lookbehind,
    };
  }

  private term(negative: boolean): Node {
    const c = this.src[this.i] as string;
    if (c === "^") {
      this.i++;
      return { ...empty(), out: "^", loose: "^" };
    }
    if (c === "$") {
      this.i++;
      const assertion = { ...empty(), loose: "$" };
      if (negative) return { ...assertion, out: "$", reach: 1, peeks: true };
      // `$` without the m flag only holds at the very end, which moves with every delta.
      if (!this.multiline) return { ...assertion, out: "(?!)" };
      return { ...assertion, out: `(?=${terminatorClass})`, reach: 1, peeks: true };
    }
    if (c === "(") return this.group(negative);
    if (c === "[") return this.charClass();
    if (c === "\\") return this.escape(negative);
    if (c === ".") {
      this.i++;
      return this.singleChar(".");
    }
    // A literal; in unicode mode a surrogate pair is one atom.
    const cp = this.src.codePointAt(this.i) as number;
    const len = this.unicode && cp > 0xffff ? 2 : 1;
    const text = this.src.slice(this.i, this.i + len);
    this.i += len;
    return this.singleChar(text);
  }

  private group(negative: boolean): Node {
    const rest = this.src.slice(this.i, this.i + 4);
    let kind: "plain" | "ahead" | "not-ahead" | "behind" | "not-behind";
    let open: string;
    if (rest.startsWith("(?=")) [kind, open] = ["ahead", "(?="];
    else if (rest.startsWith("(?!")) [kind, open] = ["not-ahead", "(?!"];
    else if (rest.startsWith("(?<=")) [kind, open] = ["behind", "(?<="];
    else if (rest.startsWith("(?<!")) [kind, open] = ["not-behind", "(?<!"];
    else if (rest.startsWith("(?:")) [kind, open] = ["plain", "(?:"];
    else if (rest.startsWith("(?<")) {
      const close = this.src.indexOf(">", this.i);
      kind = "plain";
      open = this.src.slice(this.i, close + 1);
      this.groupRefs = true;
    } else [kind, open] = ["plain", "("];
    this.i += open.length;
    const inner = this.disjunction(negative || kind === "not-ahead" || kind === "not-behind");
    this.i++; // ")"
    const wrapped = `${open}${inner.out})`;
    if (kind === "plain") {
      return {
        ...inner,
        out: wrapped,
        loose: `(?:${inner.loose})`,
        partial: `(?:${inner.partial})`,
      };
    }
    inner.opaque = true;
    if (kind === "ahead") {
      return { ...inner, out: wrapped, consume: 0, peeks: true };
    }
    if (kind === "behind") {
      return {
        ...inner,
        out: wrapped,
        consume: 0,
        reach: inner.peeks ? inner.reach : 0,
        lookbehind: inner.consume + inner.lookbehind,
      };
    }
    const readsAhead = kind === "not-ahead" || inner.peeks;
    const node: Node = {
      ...inner,
      out: wrapped,
      consume: 0,
      reach: kind === "not-ahead" || inner.peeks ? inner.reach : 0,
      lookbehind: kind === "not-behind" ? inner.consume + inner.lookbehind : inner.lookbehind,
      peeks: readsAhead,
    };
    if (negative || !readsAhead) return node;
    // The negation is only settled once everything it could read is present.
    const need = node.reach + 1;
    if (!Number.isFinite(need)) return { ...node, unstable: true };
    const guard = this.lineLocal
      ? `(?=[^\\n\\r\\u2028\\u2029]{0,${need - 1}}${terminatorClass}|[\\s\\S]{${need}})`
      : `(?=[\\s\\S]{${need}})`;
    // In unicode mode the guard counts code points, each up to two code units.
    return { ...node, out: `${guard}${wrapped}`, reach: this.unicode ? 2 * need : need };
  }

  private charClass(): Node {
    const start = this.i;
    this.i++;
    if (this.src[this.i] === "^") this.i++;
    while (this.i < this.src.length && this.src[this.i] !== "]") {
      this.i += this.src[this.i] === "\\" ? 2 : 1;
    }
    this.i++;
    return this.singleChar(this.src.slice(start, this.i));
  }

  private escape(negative: boolean): Node {
    const next = this.src[this.i + 1] ?? "";
    if (next === "b" || next === "B") {
      this.i += 2;
      const peek = this.unicode ? 2 : 1; // the stable form peeks at one code point
      const assertion = { ...empty(), loose: `(?:\\${next}|${atEnd})`, reach: peek, peeks: true };
      if (negative) return { ...assertion, out: `\\${next}` };
      return { ...assertion, out: `\\${next}(?=[\\s\\S])` };
    }
    if (/[1-9]/.test(next) || (next === "k" && this.src[this.i + 2] === "<")) {
      // Back references (or legacy octal escapes): unbounded and may span lines.
      this.groupRefs = true;
      const m = /^\\(?:[1-9]\d*|k<[^>]*>)/.exec(this.src.slice(this.i)) as RegExpExecArray;
      this.i += m[0].length;
      return {
        ...empty(),
        out: m[0],
        consume: Number.POSITIVE_INFINITY,
        reach: Number.POSITIVE_INFINITY,
        crosses: true,
        opaque: true,
      };
    }
    const m =
      /^\\(?:c[A-Za-z]|x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|[pP]\{[^}]*\}|0|[\s\S])/.exec(
        this.src.slice(this.i),
      ) as RegExpExecArray;
    let text = m[0];
    if (!this.unicode && /^\\[pP]\{/.test(text)) text = text.slice(0, 2);
    if (!this.unicode && text.startsWith("\\u{")) text = text.slice(0, 2);
    // A surrogate pair written as two \u escapes is one character in unicode mode.
    const pair = /^\\u[dD][89abAB][0-9A-Fa-f]{2}\\u[dD][c-fC-F][0-9A-Fa-f]{2}/.exec(
      this.src.slice(this.i),
    );
    if (this.unicode && pair) text = pair[0];
    this.i += text.length;
    return this.singleChar(text);
  }

  private singleChar(text: string): Node {
    return {
      ...empty(),
      out: text,
      loose: text,
      consume: this.unicode ? 2 : 1,
      reach: this.unicode ? 2 : 1,
      crosses: this.matchesTerminator(text),
    };
  }

  private matchesTerminator(atom: string): boolean {
    try {
      const re = new RegExp(`^(?:${atom})$`, this.atomFlags);
      return lineTerminators.some((t) => re.test(t));
    } catch {
      return true;
    }
  }
}

const endReaders = /\$|\\[bB]|\(\?<?!/;

/**
 * Analyses a pattern that `new RegExp(source, flags)` accepts.
 * @returns the stable rewrite with the bounds the incremental matcher relies on
 */
export function analyzePattern(source: string, flags: string): PatternAnalysis {
  try {
    const first = new Parser(source, flags, false);
    const probe = first.disjunction(false);
    if (first.i !== source.length) throw new Error("unparsed rest");
    const lineLocal = !probe.crosses;
    const parser = new Parser(source, flags, lineLocal);
    const node = parser.disjunction(false);
    const stableSource = node.unstable ? undefined : node.out;
    if (stableSource !== undefined) new RegExp(stableSource, flags);
    const viableSource = node.opaque || parser.groupRefs ? undefined : node.partial;
    if (viableSource !== undefined) new RegExp(viableSource, flags);
    return {
      viableSource,
      stableSource,
      reach: node.reach,
      lookbehind: node.lookbehind,
      lineLocal,
      hasGroupReferences: parser.groupRefs,
    };
  } catch {
    // Syntax this analysis does not know: stay exact by assuming the worst.
    return {
      stableSource: endReaders.test(source) ? undefined : source,
      reach: Number.POSITIVE_INFINITY,
      lookbehind: Number.POSITIVE_INFINITY,
      lineLocal: false,
      hasGroupReferences: true,
      viableSource: undefined,
    };
  }
}
