import { z } from "zod";

/** The limits every request is held to; each has a default. */
export const serverLimitsSchema = z.strictObject({
  /** The largest request body, in bytes. */
  bodyBytes: z
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** The deepest nesting of arrays and objects a JSON body may have. */
  jsonDepth: z.number().int().min(2).max(1000).default(32),
  /** The longest prompt, in characters. */
  promptChars: z.number().int().min(1).max(10_000_000).default(200_000),
  /** Open SSE streams per API key. */
  sseStreamsPerKey: z.number().int().min(1).max(100_000).default(64),
  /** Requests per API key per minute (per server instance). */
  requestsPerMinute: z.number().int().min(1).max(10_000_000).default(6_000),
  /** How long a request (other than an SSE stream) may take, in milliseconds. */
  requestTimeoutMs: z.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Failed key attempts one client address may make per minute (per server instance); past
   * it every request from the address answers 429 with `Retry-After` until the minute ends.
   */
  authFailuresPerMinute: z.number().int().min(1).max(1_000_000).default(30),
  /**
   * How often an open SSE stream checks that its key is still valid, in milliseconds; a key
   * revoked through this instance ends its streams at once, one revoked elsewhere within this.
   */
  keyCheckMs: z.number().int().min(50).max(600_000).default(2_000),
  /** Runs one session may have queued behind its running one (429 `queue_full` past it). */
  queuedRunsPerSession: z.number().int().min(1).max(100_000).default(16),
  /** Runs one tenant may have queued in all its sessions together (per server process). */
  queuedRunsPerTenant: z.number().int().min(1).max(1_000_000).default(256),
  /** The interval of SSE keep-alive comments, in milliseconds. */
  keepAliveMs: z.number().int().min(100).max(600_000).default(15_000),
});

/** The limits, with defaults applied. */
export type ServerLimits = z.output<typeof serverLimitsSchema>;

/** The default limits. */
export const DEFAULT_LIMITS: ServerLimits = serverLimitsSchema.parse({});
