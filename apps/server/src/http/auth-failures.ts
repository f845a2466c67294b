import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { ApiError } from "../errors/index.js";

/** How many client addresses are remembered at most; the oldest window goes first. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed key attempts per client address in a fixed one-minute window, counted in this
 * process. An address past the limit is refused (429 with `Retry-After`) before its key is
 * even looked at, until its window ends, so guessing keys costs a minute per few dozen
 * tries. At most 10,000 addresses are remembered.
 */
export class AuthFailures {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Refuses an address that used up its failures this minute.
   * @throws ApiError 429 `too_many_auth_failures` with `Retry-After`
   */
  check(c: Context, address: string): void {
    const window = this.current(address);
    if (!window || window.count < this.perMinute) return;
    c.header(
      "Retry-After",
      String(Math.max(1, Math.ceil((window.start + 60_000 - this.now()) / 1000))),
    );
    throw new ApiError(
      429,
      "too_many_auth_failures",
      `more than ${this.perMinute} failed API key attempts this minute from this address; retry after the Retry-After seconds`,
    );
  }

  /** Counts one failed attempt of an address. */
  fail(address: string): void {
    const window = this.current(address) ?? { start: this.minute(), count: 0 };
    window.count++;
    this.windows.delete(address);
    if (this.windows.size >= MAX_ADDRESSES) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    this.windows.set(address, window);
  }

  private minute(): number {
    const time = this.now();
    return time - (time % 60_000);
  }

  private current(address: string): { start: number; count: number } | undefined {
    const window = this.windows.get(address);
    if (window && window.start !== this.minute()) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }
}

/** The address a request came from: the socket's peer on Node, else `unknown`. */
export function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}
