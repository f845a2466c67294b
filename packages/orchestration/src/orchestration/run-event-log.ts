import { InvalidSubscriptionError, type SubscribeOptions } from "@arbor/turn-runner";

/**
 * The events of one host run as a multicast log: each pushed event is kept, and any
 * number of readers read it from a sequence number of their choice — the missed events
 * first, then new ones as they come — until the log closes. The log lives as long as the
 * run object, like the turn runner's own run log.
 */
export class RunEventLog<T> {
  readonly #events: T[] = [];
  readonly #waiting = new Set<() => void>();
  #closed = false;

  /** How many events were pushed (the `seq` of the last one). */
  get lastSeq(): number {
    return this.#events.length;
  }

  /** Appends an event; ignored once closed. */
  push(event: T): void {
    if (this.#closed) return;
    this.#events.push(event);
    this.#wake();
  }

  /** Ends every reader after the events already pushed. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /**
   * The events after `afterSeq` (default 0: all), then new ones until {@link close}.
   * @throws InvalidSubscriptionError when `afterSeq` is not a whole number of 0 or more
   */
  subscribe(options: SubscribeOptions = {}): AsyncIterable<T> {
    const afterSeq = options.afterSeq ?? 0;
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
      throw new InvalidSubscriptionError(afterSeq);
    }
    return this.#read(afterSeq);
  }

  async *#read(afterSeq: number): AsyncGenerator<T> {
    let next = afterSeq;
    while (true) {
      while (next < this.#events.length) yield this.#events[next++] as T;
      if (this.#closed) return;
      await new Promise<void>((resolve) => this.#waiting.add(resolve));
    }
  }

  #wake(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const resolve of waiting) resolve();
  }
}
