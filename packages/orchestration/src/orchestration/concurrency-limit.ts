/**
 * Runs tasks with at most `limit` of them running at once; the rest wait in call order.
 */
export class ConcurrencyLimit {
  #running = 0;
  readonly #queue: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Runs `task` once a slot is free. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) {
      await new Promise<void>((resolve) => this.#queue.push(resolve));
    } else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#running--;
    }
  }
}
