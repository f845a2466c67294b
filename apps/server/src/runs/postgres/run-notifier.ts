import pg from "pg";

/** What a {@link RunNotifier} does with each channel's payloads, and after a reconnect. */
export interface RunNotifierOptions {
  connectionString: string;
  /** A handler per channel, called with each notification's payload. */
  handlers: Readonly<Record<string, (payload: string) => void>>;
  /** Called after the connection came back: notifications sent meanwhile are lost. */
  onReconnect: () => void;
  /** The longest wait between reconnection attempts, in milliseconds. */
  maxBackoffMs?: number;
}

/**
 * `LISTEN` on a dedicated connection (never a pooled one: a pool, or PgBouncer in
 * transaction mode, would drop the subscription). Reconnects with backoff when the
 * connection is lost, listens again, and calls `onReconnect` so callers catch up.
 */
export class RunNotifier {
  private client: pg.Client | undefined;
  private closed = false;
  private backoffMs = 100;
  private retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: RunNotifierOptions) {}

  /** Connects and listens; rejects when the first connection fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  /**
   * Runs a statement on the dedicated connection, so it never queues behind the pool's work
   * (lease renewals must not wait for event appends).
   * @throws Error when the connection is down (the caller falls back to the pool)
   */
  async query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    const client = this.client;
    if (!client) throw new Error("the notification connection is down");
    return client.query<R>(sql, params);
  }

  /** Whether the listening connection is up. */
  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.connectionString });
    client.on("notification", (message) => {
      this.options.handlers[message.channel]?.(message.payload ?? "");
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.schedule();
    };
    client.on("error", lost);
    client.on("end", lost);
    try {
      await client.connect();
      for (const channel of Object.keys(this.options.handlers))
        await client.query(`LISTEN ${channel}`);
    } catch (error) {
      client.removeAllListeners("end");
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.backoffMs = 100;
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(async () => {
      this.retry = undefined;
      try {
        await this.connect();
        this.options.onReconnect();
      } catch {
        this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 2000);
        this.schedule();
      }
    }, this.backoffMs);
    this.retry.unref();
  }

  /** Stops listening and closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
