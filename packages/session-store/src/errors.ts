/**
 * Errors thrown by the session store. Each has a stable `name` and `code`, and a static
 * `isInstance()` that works across duplicated copies of this package.
 */

const marker = Symbol.for("@arbor/session-store.error");

/** The base of every session-store error. */
export class SessionStoreError extends Error {
  readonly [marker] = true;
  override readonly name: string = "SessionStoreError";
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** Tells whether a value is a SessionStoreError, even one from another copy of this package. */
  static isInstance(error: unknown): error is SessionStoreError {
    return typeof error === "object" && error !== null && marker in error;
  }
}

/** Why a file cannot be opened as a session. */
export type SessionFileProblem = "not_jsonl" | "invalid_header" | "unsupported_version";

/** A file that is not a session file. It is never rewritten or truncated. */
export class SessionFileError extends SessionStoreError {
  override readonly name = "SessionFileError";
  constructor(
    readonly path: string,
    readonly problem: SessionFileProblem,
    detail: string,
  ) {
    super(
      problem,
      `${path} is not an Arbor or pi session file: ${detail}. The file was left unchanged.`,
    );
  }

  /** Tells whether a value is a SessionFileError, even one from another copy of this package. */
  static override isInstance(error: unknown): error is SessionFileError {
    return SessionStoreError.isInstance(error) && error.name === "SessionFileError";
  }
}

/** Another live process holds the session open for writing. */
export class SessionLockedError extends SessionStoreError {
  override readonly name = "SessionLockedError";
  constructor(
    readonly path: string,
    readonly holderPid: number,
  ) {
    super(
      "session_locked",
      `${path} is open for writing in process ${holderPid}. Close it there, or open it read-only.`,
    );
  }

  /** Tells whether a value is a SessionLockedError, even one from another copy of this package. */
  static override isInstance(error: unknown): error is SessionLockedError {
    return SessionStoreError.isInstance(error) && error.name === "SessionLockedError";
  }
}

/** An id that names no entry of the session. */
export class EntryNotFoundError extends SessionStoreError {
  override readonly name = "EntryNotFoundError";
  constructor(readonly entryId: string) {
    super("entry_not_found", `no entry with id "${entryId}" in this session`);
  }

  /** Tells whether a value is a EntryNotFoundError, even one from another copy of this package. */
  static override isInstance(error: unknown): error is EntryNotFoundError {
    return SessionStoreError.isInstance(error) && error.name === "EntryNotFoundError";
  }
}

/** A write on a session opened read-only, or closed. */
export class SessionReadOnlyError extends SessionStoreError {
  override readonly name = "SessionReadOnlyError";
  constructor(reason: string) {
    super("read_only", `this session cannot be written: ${reason}`);
  }

  /** Tells whether a value is a SessionReadOnlyError, even one from another copy of this package. */
  static override isInstance(error: unknown): error is SessionReadOnlyError {
    return SessionStoreError.isInstance(error) && error.name === "SessionReadOnlyError";
  }
}
