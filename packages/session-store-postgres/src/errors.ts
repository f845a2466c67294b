import { arborErrorGuard, SessionStoreError } from "@arbor/session-store";

/**
 * A writer's lease on a session was taken over (it expired while the writer stalled, and
 * another writer took it) or the session was deleted: nothing more is written through it.
 */
export class SessionLeaseLostError extends SessionStoreError {
  override readonly name = "SessionLeaseLostError";
  constructor(
    readonly location: string,
    detail: string,
  ) {
    super(
      "lease_lost",
      `${location}: this writer lost its lease (${detail}); nothing more is written through it. Reopen the session to continue.`,
    );
  }

  /** Tells whether a value is a SessionLeaseLostError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionLeaseLostError>(
    "@arbor/session-store-postgres:SessionLeaseLostError",
  );
}

/** An append carried an entry id the session already has (under another operation id). */
export class DuplicateEntryError extends SessionStoreError {
  override readonly name = "DuplicateEntryError";
  constructor(
    readonly location: string,
    readonly entryIds: readonly string[],
  ) {
    super(
      "duplicate_entry",
      `${location} already has an entry with id ${entryIds.map((id) => `"${id}"`).join(" or ")}; the append was not stored`,
    );
  }

  /** Tells whether a value is a DuplicateEntryError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<DuplicateEntryError>(
    "@arbor/session-store-postgres:DuplicateEntryError",
  );
}

/**
 * The database could not be reached for long enough that the write was given up. The
 * write may or may not be stored: retrying it with the same operation id is safe.
 */
export class DatabaseUnavailableError extends SessionStoreError {
  override readonly name = "DatabaseUnavailableError";
  constructor(
    readonly location: string,
    options: { cause: unknown; waitedMs: number },
  ) {
    super(
      "database_unavailable",
      `${location}: PostgreSQL did not answer for ${options.waitedMs} ms (${String((options.cause as Error)?.message ?? options.cause)}); the write was given up`,
      { cause: options.cause },
    );
  }

  /** Tells whether a value is a DatabaseUnavailableError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<DatabaseUnavailableError>(
    "@arbor/session-store-postgres:DatabaseUnavailableError",
  );
}

/** Errors of the connection rather than of the statement: worth a retry. */
export function isConnectionError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    // Class 08: connection exceptions; 57P01-03: the server shutting down or restarting.
    if (code.startsWith("08") || /^57P0[123]$/.test(code)) return true;
    if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"].includes(code))
      return true;
  }
  const message = String((error as { message?: unknown }).message ?? "");
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(
    message,
  );
}
