import type { ServerRunEvent } from "../runs/server-run-event.js";
import type { ExtensionRunEvent } from "./extension-events.js";

/**
 * One sequence of a run's events out of two sources: the turn runner's events and the
 * events the server adds for extensions (UI requests, notifications, extension errors),
 * which happen while the runner's stream waits (a `tool_call` handler asking the user). Each
 * event gets the next `seq` (1, 2, 3, …) as it enters, so the log and the SSE ids stay
 * dense and ordered whichever source an event came from.
 */
export class RunEventChannel {
  private readonly queue: ServerRunEvent[] = [];
  private seq = 0;
  private ended = false;
  private wake: (() => void) | undefined;

  /** @param runId - the server run the events belong to */
  constructor(private readonly runId: string) {}

  /** Adds an event of the server's; ignored once the channel ended. */
  push(event: ExtensionRunEvent): void {
    // `seq` is stamped as it enters the queue.
    this.enqueue({ ...event, runId: this.runId, seq: 0 });
  }

  /** Copies the runner's events in until its stream ends. */
  async pump(source: AsyncIterable<ServerRunEvent>): Promise<void> {
    for await (const event of source) this.enqueue(event);
  }

  /** No more events: {@link events} ends once it gave the queued ones. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** Every event, in `seq` order, until {@link end}. One reader. */
  async *events(): AsyncGenerator<ServerRunEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }

  private enqueue(event: ServerRunEvent): void {
    if (this.ended) return;
    this.seq += 1;
    this.queue.push({ ...event, seq: this.seq });
    this.wake?.();
  }
}
