/**
 * The linear-time engine: patterns compiled to one automaton (a Thompson NFA whose
 * character tests are delegated to the native engine, one character at a time), run as a
 * lazily built DFA. Every character costs one table look-up once its transition is known,
 * and at most one pass over the NFA when it is not, so no pattern can make the work grow
 * faster than the text: there is no backtracking to blow up.
 */
import { ArborError, arborErrorGuard } from "@arbor/session-store";
import type { RegexNode } from "./regex-syntax.js";

/** Largest NFA a pattern set may compile to (counted repetitions are unrolled). */
export const maxProgramSize = 20_000;
/** DFA states cached per program before the cache starts over. */
const maxCachedStates = 4096;

type Instruction =
  | { op: "char"; test: (cp: number) => boolean; next: number }
  | { op: "split"; a: number; b: number }
  | {
      op: "assert";
      kind: "start" | "end" | "word" | "not-word";
      multiline: boolean;
      wordSet: number;
      next: number;
    }
  | { op: "match"; pattern: number };

/** One pattern for the program: its tree and flags, reported by its index. */
export interface LinearPatternInput {
  node: RegexNode;
  flags: string;
}

/** Thrown when a pattern set unrolls into more than {@link maxProgramSize} instructions. */
export class ProgramTooLargeError extends ArborError {
  override readonly name = "ProgramTooLargeError";
  /** Stable code, kept across versions so callers can branch on it. */
  declare readonly code: "ttsr_program_too_large";

  /** @param message - what the patterns expand to */
  constructor(message: string) {
    super("ttsr_program_too_large", message);
  }

  /** True for a `ProgramTooLargeError`, even one created by another copy of this package. */
  static override readonly isInstance = arborErrorGuard<ProgramTooLargeError>(
    "@arbor/ttsr:ProgramTooLargeError",
  );
}

const isTerminator = (cp: number) => cp === 10 || cp === 13 || cp === 0x2028 || cp === 0x2029;
const wordPlain = /^\w$/;
const wordUnicodeIgnoreCase = /^\w$/iu;
/** Context bits: at the start of the text, after a line terminator, after a word character. */
const AT_START = 1;
const AFTER_TERMINATOR = 2;
/** Word-character sets: `\w` as usual (0), and `\w` under the `iu` flags (1). */
const wordBit = (set: number) => 4 << set;

/** The next character as the assertions see it: a code point, unknown yet, or the end. */
const UNKNOWN = -1;
const END = -2;

/** A cached DFA transition: where a character leads, and the patterns that matched before it. */
export interface Transition {
  to: DfaState;
  accepts: number[] | null;
}

/** One DFA state: the NFA threads waiting for a character, and what the previous one was. */
export class DfaState {
  readonly ascii: (Transition | undefined)[] = new Array(128);
  readonly other = new Map<number, Transition>();
  /** Patterns matched without the next character (`undefined`: not computed yet). */
  eager: number[] | null | undefined;
  constructor(
    readonly kernel: readonly number[],
    readonly context: number,
    readonly generation: number,
  ) {}
}

/**
 * A compiled pattern set, shared by every stream that watches the same patterns. Holds the
 * NFA and the DFA states built so far.
 */
export class LinearProgram {
  private readonly code: Instruction[] = [];
  private readonly start: number;
  private states = new Map<string, DfaState>();
  private generation = 0;
  private readonly seen: Int32Array;
  private stamp = 0;
  /** The state at the start of a text. */
  readonly initial: DfaState;

  /**
   * @param unicode whether the patterns use the `u` flag (characters are code points)
   * @throws ProgramTooLargeError when the patterns unroll into too many instructions
   */
  constructor(
    patterns: readonly LinearPatternInput[],
    readonly unicode: boolean,
  ) {
    const entries = patterns.map((p, index) => {
      const match = this.emit({ op: "match", pattern: index });
      return this.compile(p.node, match, p.flags);
    });
    let start = entries[entries.length - 1] as number;
    for (let k = entries.length - 2; k >= 0; k--) {
      start = this.emit({ op: "split", a: entries[k] as number, b: start });
    }
    this.start = start;
    this.seen = new Int32Array(this.code.length);
    this.initial = this.intern([], AT_START);
  }

  /** The transition from `state` on the code point `cp`, built on first use. */
  transition(state: DfaState, cp: number): Transition {
    const cached = cp < 128 ? state.ascii[cp] : state.other.get(cp);
    if (cached && cached.to.generation === this.generation) return cached;
    const { accepts, waiting } = this.closure(state, cp);
    const kernel: number[] = [];
    for (const pc of waiting) {
      const ins = this.code[pc] as Extract<Instruction, { op: "char" }>;
      if (ins.test(cp)) kernel.push(ins.next);
    }
    let context = isTerminator(cp) ? AFTER_TERMINATOR : 0;
    if (wordPlain.test(String.fromCodePoint(cp))) context |= wordBit(0);
    if (wordUnicodeIgnoreCase.test(String.fromCodePoint(cp))) context |= wordBit(1);
    const t: Transition = { to: this.intern(kernel, context), accepts };
    if (cp < 128) state.ascii[cp] = t;
    else state.other.set(cp, t);
    return t;
  }

  /** Patterns whose match ends here without depending on the next character. */
  eager(state: DfaState): number[] | null {
    if (state.eager === undefined) state.eager = this.closure(state, UNKNOWN).accepts;
    return state.eager;
  }

  /** Patterns whose match ends here when the text ends here. */
  final(state: DfaState): number[] | null {
    return this.closure(state, END).accepts;
  }

  private intern(kernel: number[], context: number): DfaState {
    const sorted = [...new Set(kernel)].sort((x, y) => x - y);
    const key = `${context}:${sorted.join(",")}`;
    let state = this.states.get(key);
    if (!state) {
      if (this.states.size >= maxCachedStates) {
        // Start over rather than grow without bound; states from before stay valid.
        this.states = new Map();
        this.generation++;
      }
      state = new DfaState(sorted, context, this.generation);
      this.states.set(key, state);
    }
    return state;
  }

  /**
   * Follows every non-consuming edge from the state's threads plus a new match start.
   * @returns the patterns reaching their end, and the character tests now waiting
   */
  private closure(state: DfaState, next: number): { accepts: number[] | null; waiting: number[] } {
    const stamp = ++this.stamp;
    const stack = [this.start, ...state.kernel];
    const waiting: number[] = [];
    let accepts: number[] | null = null;
    while (stack.length > 0) {
      const pc = stack.pop() as number;
      if (this.seen[pc] === stamp) continue;
      this.seen[pc] = stamp;
      const ins = this.code[pc] as Instruction;
      if (ins.op === "char") waiting.push(pc);
      else if (ins.op === "split") stack.push(ins.b, ins.a);
      else if (ins.op === "match") {
        accepts ??= [];
        if (!accepts.includes(ins.pattern)) accepts.push(ins.pattern);
      } else if (holds(ins, state.context, next)) stack.push(ins.next);
    }
    return { accepts, waiting };
  }

  private emit(ins: Instruction): number {
    if (this.code.length >= maxProgramSize) {
      throw new ProgramTooLargeError(`expands to more than ${maxProgramSize} automaton states`);
    }
    this.code.push(ins);
    return this.code.length - 1;
  }

  /** Compiles `node` so that it continues at `next`; returns its entry. */
  private compile(node: RegexNode, next: number, flags: string): number {
    switch (node.type) {
      case "char":
        return this.emit({ op: "char", test: charTest(node.source, flags, this.unicode), next });
      case "seq":
        return node.items.reduceRight((to, item) => this.compile(item, to, flags), next);
      case "alt": {
        const entries = node.alternatives.map((a) => this.compile(a, next, flags));
        let entry = entries[entries.length - 1] as number;
        for (let k = entries.length - 2; k >= 0; k--) {
          entry = this.emit({ op: "split", a: entries[k] as number, b: entry });
        }
        return entry;
      }
      case "repeat": {
        let entry = next;
        if (node.max === Infinity) {
          const loop = this.emit({ op: "split", a: -1, b: next });
          (this.code[loop] as { a: number }).a = this.compile(node.body, loop, flags);
          entry = loop;
        } else {
          for (let k = 0; k < node.max - node.min; k++) {
            entry = this.emit({ op: "split", a: this.compile(node.body, entry, flags), b: next });
          }
        }
        for (let k = 0; k < node.min; k++) entry = this.compile(node.body, entry, flags);
        return entry;
      }
      case "assert":
        return this.emit({
          op: "assert",
          kind: node.kind,
          multiline: flags.includes("m"),
          wordSet: flags.includes("i") && flags.includes("u") ? 1 : 0,
          next,
        });
      default:
        throw new Error(`the linear engine cannot run ${node.type} nodes`);
    }
  }
}

function holds(
  ins: Extract<Instruction, { op: "assert" }>,
  context: number,
  next: number,
): boolean {
  if (ins.kind === "start") {
    return (context & AT_START) !== 0 || (ins.multiline && (context & AFTER_TERMINATOR) !== 0);
  }
  if (next === UNKNOWN) return false;
  if (ins.kind === "end") return next === END || (ins.multiline && isTerminator(next));
  const before = (context & wordBit(ins.wordSet)) !== 0;
  const word = ins.wordSet === 1 ? wordUnicodeIgnoreCase : wordPlain;
  const after = next !== END && word.test(String.fromCodePoint(next));
  return (before !== after) === (ins.kind === "word");
}

/** A test for one character, asked of the native engine so it means what JavaScript says. */
function charTest(source: string, flags: string, unicode: boolean): (cp: number) => boolean {
  const atomFlags = [...flags].filter((f) => f === "i" || f === "s" || f === "u").join("");
  const re = new RegExp(`^(?:${source})$`, atomFlags);
  const toText = unicode ? String.fromCodePoint : String.fromCharCode;
  return (cp) => re.test(toText(cp));
}
