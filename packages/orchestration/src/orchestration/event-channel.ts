/**
 * A multicast stream of an orchestration's events: every subscriber gets every event from
 * the first, then new ones as they come, until the channel closes.
 */
export class EventChannel<T> {
  readonly #events: T[] = [];
  readonly #waiting = new Set<() => void>();
  #closed = false;

  /** Appends an event; ignored once closed. */
  push(event: T): void {
    if (this.#closed) return;
    this.#events.push(event);
    this.#wake();
  }

  /** Ends every subscription after the events already pushed. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /** Every event from the first, then new ones until {@link close}. */
  async *subscribe(): AsyncGenerator<T> {
    let next = 0;
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
