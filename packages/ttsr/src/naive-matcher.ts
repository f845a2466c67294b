import type { PreparedPattern } from "./stream-matcher.js";

/**
 * The reference matcher: re-runs every pattern over the whole text after every delta.
 * Quadratic, obviously right; the property tests and the benchmark compare against it.
 */
export class NaiveStreamMatcher {
  private buffer = "";
  private readonly reported = new Set<PreparedPattern>();
  private readonly stable: Map<PreparedPattern, RegExp>;

  /** @param useOriginal re-run the patterns as written (what a plain re-scan does) */
  constructor(
    private readonly patterns: readonly PreparedPattern[],
    useOriginal = false,
  ) {
    this.stable = new Map(
      patterns.flatMap((p) => {
        const source = useOriginal ? p.source : p.analysis.stableSource;
        return source === undefined ? [] : [[p, new RegExp(source, p.flags)] as const];
      }),
    );
  }

  /** Appends a delta and returns the keys that match for the first time. */
  push(delta: string): string[] {
    this.buffer += delta;
    return this.collect((p) => this.stable.get(p)?.test(this.buffer) ?? false);
  }

  /** Returns the keys not reported yet whose original pattern matches the whole text. */
  finish(): string[] {
    return this.collect((p) => p.original.test(this.buffer));
  }

  private collect(matches: (p: PreparedPattern) => boolean): string[] {
    const keys: string[] = [];
    for (const p of this.patterns) {
      if (this.reported.has(p) || !matches(p)) continue;
      this.reported.add(p);
      if (!keys.includes(p.key)) keys.push(p.key);
    }
    return keys;
  }
}
