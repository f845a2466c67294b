/**
 * An unbounded single-consumer queue exposed as an async iterable: the loop pushes events
 * without waiting, and a caller that never reads them only costs memory.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  private readonly buffer: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;

  /** @param observe sees every event as it is pushed (before any reader), e.g. for tracing */
  constructor(private readonly observe?: (value: T) => void) {}

  push(value: T): void {
    if (this.closed) return;
    this.observe?.(value);
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value, done: false });
    } else {
      this.buffer.push(value);
    }
  }

  close(): void {
    this.closed = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const value = this.buffer.shift();
        if (value !== undefined) return Promise.resolve({ value, done: false });
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}
