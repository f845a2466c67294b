import {
  type AgentEvent,
  type AgentEventPayload,
  InvalidSubscriptionError,
  type RunAncestry,
  type SubscribeOptions,
} from "./contracts/index.js";

/**
 * The events of one run as a multicast log: the loop pushes payloads without waiting, each
 * is stamped with the run's id, the next sequence number (1, 2, 3, …) and the run's
 * ancestry and kept, and any
 * number of subscribers read it from a sequence number of their choice — the missed
 * events first, then new ones as they come — until the run closes it.
 *
 * The log lives as long as the run object: a subscriber joining late (an SSE client
 * reconnecting with `Last-Event-ID`) replays from memory.
 */
export class RunEvents {
  readonly #log: AgentEvent[] = [];
  /** Subscribers caught up with the log, waiting for the next event. */
  #waiting: Array<() => void> = [];
  #closed = false;

  /**
   * @param ancestry - stamped on every event, with its `runId` as the event's `runId`
   * @param observe - sees every event as it is pushed (before any reader), e.g. for tracing
   */
  constructor(
    readonly ancestry: RunAncestry,
    private readonly observe?: (event: AgentEvent) => void,
  ) {}

  /** The id of the run, stamped on every event. */
  get runId(): string {
    return this.ancestry.runId;
  }

  /** How many events were pushed (the `seq` of the last one). */
  get lastSeq(): number {
    return this.#log.length;
  }

  /** Whether the run ended: no event follows. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Stamps a payload with the run id, the next `seq` and the ancestry, keeps it and wakes
   * the subscribers.
   */
  push(payload: AgentEventPayload): void {
    if (this.#closed) return;
    const { ancestry } = this;
    const event = {
      runId: ancestry.runId,
      seq: this.#log.length + 1,
      ancestry,
      ...payload,
    } as AgentEvent;
    this.observe?.(event);
    this.#log.push(event);
    this.#wake();
  }

  /** Ends the log: subscribers get what is left, then finish. */
  close(): void {
    this.#closed = true;
    this.#wake();
  }

  /**
   * The events after `afterSeq` (default 0: all of them), then new ones until the log closes.
   * @throws InvalidSubscriptionError when `afterSeq` is not a whole number of 0 or more
   */
  subscribe(options: SubscribeOptions = {}): AsyncIterable<AgentEvent> {
    const afterSeq = options.afterSeq ?? 0;
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0) {
      throw new InvalidSubscriptionError(afterSeq);
    }
    return { [Symbol.asyncIterator]: () => this.#reader(afterSeq) };
  }

  #reader(afterSeq: number): AsyncIterator<AgentEvent> {
    // The index in the log of the next event this reader gets (seq = index + 1).
    let next = afterSeq;
    let finished = false;
    const log = this.#log;
    const step = (): IteratorResult<AgentEvent> | undefined => {
      if (finished) return { value: undefined, done: true };
      const event = log[next];
      if (event !== undefined) {
        next++;
        return { value: event, done: false };
      }
      return this.#closed ? { value: undefined, done: true } : undefined;
    };
    const wait = (resolve: (result: IteratorResult<AgentEvent>) => void): void => {
      // Woken by an event this reader may not want yet (it joined past the end): wait on.
      this.#waiting.push(() => {
        const ready = step();
        if (ready) resolve(ready);
        else wait(resolve);
      });
    };
    return {
      next: () => {
        const ready = step();
        return ready ? Promise.resolve(ready) : new Promise(wait);
      },
      return: () => {
        finished = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  #wake(): void {
    if (this.#waiting.length === 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resume of waiting) resume();
  }
}
