/** Something a scope stops or aborts: a running agent host. */
export interface ScopedRun {
  stop(): void;
  abort(): void;
}

/**
 * The controls of one agent's part of an orchestration and everything under it: a stop or
 * abort reaches the runs registered here and every child scope, also those made later
 * (a scope made under a stopped or aborted scope starts stopped or aborted).
 */
export class RunScope {
  readonly #runs = new Set<ScopedRun>();
  readonly #children = new Set<RunScope>();
  #aborted = false;
  #stopped = false;

  constructor(private readonly parent?: RunScope) {
    this.#aborted = parent?.aborted ?? false;
    this.#stopped = parent?.stopped ?? false;
  }

  /** Whether this scope (or one above it) was aborted. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** Whether this scope (or one above it) was stopped. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** A scope under this one; remove it with {@link release}. */
  child(): RunScope {
    const scope = new RunScope(this);
    this.#children.add(scope);
    return scope;
  }

  /** Detaches this scope from its parent. */
  release(): void {
    if (this.parent) this.parent.#children.delete(this);
  }

  /** Registers a running run; returns a function that removes it. */
  track(run: ScopedRun): () => void {
    this.#runs.add(run);
    if (this.#aborted) run.abort();
    else if (this.#stopped) run.stop();
    return () => this.#runs.delete(run);
  }

  /** Ends every run at once, here and below. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    for (const run of this.#runs) run.abort();
    for (const child of this.#children) child.abort();
  }

  /** Asks every run, here and below, to finish with one final turn. */
  stop(): void {
    if (this.#stopped || this.#aborted) return;
    this.#stopped = true;
    for (const run of this.#runs) run.stop();
    for (const child of this.#children) child.stop();
  }
}
