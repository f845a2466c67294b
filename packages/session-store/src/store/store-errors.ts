import { arborErrorGuard, SessionStoreError } from "../errors/index.js";

/** No session with this id in the store (or in the tenant asked for). */
export class SessionNotFoundError extends SessionStoreError {
  override readonly name = "SessionNotFoundError";
  constructor(
    readonly sessionId: string,
    readonly tenant: string | undefined,
  ) {
    super(
      "not_found",
      `no session "${sessionId}"${tenant === undefined ? "" : ` in tenant "${tenant}"`}; list the store to see which exist`,
    );
  }

  /** Tells whether a value is a SessionNotFoundError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionNotFoundError>(
    "@arbor/session-store:SessionNotFoundError",
  );
}

/** A store call given a field it cannot use: an unknown cursor, a limit out of range, … */
export class InvalidStoreQueryError extends SessionStoreError {
  override readonly name = "InvalidStoreQueryError";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super("invalid_query", `invalid "${field}": ${reason}`);
  }

  /** Tells whether a value is an InvalidStoreQueryError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<InvalidStoreQueryError>(
    "@arbor/session-store:InvalidStoreQueryError",
  );
}
