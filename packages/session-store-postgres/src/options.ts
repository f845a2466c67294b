import { z } from "zod";

/** How a {@link PostgresSessionStore} connects and behaves. */
export const postgresStoreOptionsSchema = z.strictObject({
  /** A `pg.Pool` the application owns (the store never ends it). */
  pool: z
    .custom<import("pg").Pool>(
      (value) =>
        typeof value === "object" && value !== null && "query" in value && "connect" in value,
      { message: "not a pg.Pool" },
    )
    .optional(),
  /** A connection string; the store makes its own pool and ends it on `close()`. */
  connectionString: z.string().min(1).optional(),
  /** The schema holding the tables (created when missing). Default `arbor`. */
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, "lower-case letters, digits and _, starting with a letter")
    .default("arbor"),
  /** How long a writer's lease lasts without renewal: a dead writer's lease frees after it. */
  leaseTtlMs: z.number().int().min(100).max(3_600_000).default(15_000),
  /** How long an append is retried while the database cannot be reached. */
  retryForMs: z.number().int().min(0).max(600_000).default(5_000),
  /** The longest automatic title. */
  titleLength: z.number().int().min(1).max(1000).optional(),
  /** The host name leases record, to name a holder in errors. */
  host: z.string().max(255).optional(),
  /**
   * Also enforce tenant isolation in the database: row-level security on the tables, a
   * policy per tenant read from `arbor.tenant`, set (`SET LOCAL`) in a transaction around
   * each of the store's statements, so even a query that forgets its tenant filter sees
   * one tenant's sessions. Needs a role that is not a superuser and has no BYPASSRLS. Costs
   * a transaction (three more round trips) per statement. Default false.
   */
  rowLevelSecurity: z.boolean().default(false),
  /** Pool size of a pool made from `connectionString`. Default 10. */
  maxConnections: z.number().int().min(1).max(1000).default(10),
});

/** Options of {@link PostgresSessionStore.connect} (input form). */
export type PostgresStoreOptions = z.input<typeof postgresStoreOptionsSchema>;
