/**
 * Errors thrown by the session store. Each has a stable `name` and `code`, and a static
 * `isInstance()` that works across duplicated copies of this package.
 */
import { ArborError, arborErrorGuard } from "./arbor-error.js";

/** The base of every session-store error. */
export class SessionStoreError extends ArborError {
  override readonly name: string = "SessionStoreError";

  /** Tells whether a value is a SessionStoreError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionStoreError>(
    "@arbor/session-store:SessionStoreError",
  );
}

/**
 * Why a file cannot be opened (or deleted) as a session: not JSONL, no session header, a
 * newer format, not a regular file (a directory, a FIFO, a device, a symbolic link), not
 * named `*.jsonl`, or outside the store's directory.
 */
export type SessionFileProblem =
  | "not_jsonl"
  | "invalid_header"
  | "unsupported_version"
  | "not_regular_file"
  | "wrong_extension"
  | "outside_directory";

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
  static override readonly isInstance = arborErrorGuard<SessionFileError>(
    "@arbor/session-store:SessionFileError",
  );
}

/** Who holds a session's writer lock, as its lock file records it. */
export interface LockHolder {
  /** The lock file (`<session>.lock`). */
  lockPath: string;
  /** The host the holder runs on, when the lock file names one. */
  host?: string;
  /**
   * Why the lock was not taken over: `live` (its process runs), `foreign_host` (another
   * machine's lock, never taken over automatically), `unreadable` (a lock file that
   * stayed empty or broken), or `contended` (another process took it over first).
   */
  reason?: "live" | "foreign_host" | "unreadable" | "contended";
}

/** Another process holds the session open for writing. */
export class SessionLockedError extends SessionStoreError {
  override readonly name = "SessionLockedError";
  /** The lock file, when the backend uses one. */
  readonly lockPath: string | undefined;
  /** The holder's host, when known. */
  readonly holderHost: string | undefined;
  /** Why the lock was not taken over (see {@link LockHolder.reason}). */
  readonly reason: LockHolder["reason"];
  constructor(
    readonly path: string,
    readonly holderPid: number,
    holder: LockHolder | undefined = undefined,
  ) {
    super("session_locked", lockedMessage(path, holderPid, holder));
    this.lockPath = holder?.lockPath;
    this.holderHost = holder?.host;
    this.reason = holder?.reason;
  }

  /** Tells whether a value is a SessionLockedError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionLockedError>(
    "@arbor/session-store:SessionLockedError",
  );
}

function lockedMessage(path: string, pid: number, holder: LockHolder | undefined): string {
  const lock = holder ? ` (lock file ${holder.lockPath})` : "";
  switch (holder?.reason) {
    case "foreign_host":
      return `${path} is locked by process ${pid} on another host, ${holder.host}${lock}. A lock from another host is never taken over automatically: if that process is gone, open with { staleLockPolicy: "break" } or delete the lock file.`;
    case "unreadable":
      return `${path} has a lock file that stayed unreadable${lock}. If no process is writing the session, delete the lock file.`;
    case "contended":
      return `${path} was taken over by another process at the same moment${lock}. Close it there, or open it read-only.`;
    default:
      return `${path} is open for writing in process ${pid}${lock}. Close it there, or open it read-only.`;
  }
}

/** An id that names no entry of the session. */
export class EntryNotFoundError extends SessionStoreError {
  override readonly name = "EntryNotFoundError";
  /**
   * @param entryId - the id that names nothing
   * @param referencedBy - the entry being appended that refers to it (as its parent, its
   *   label's target), when there is one
   */
  constructor(
    readonly entryId: string,
    readonly referencedBy?: string,
  ) {
    super(
      "entry_not_found",
      referencedBy === undefined
        ? `no entry with id "${entryId}" in this session`
        : `entry "${referencedBy}" refers to "${entryId}", which is neither in this session nor earlier in the batch; nothing was written`,
    );
  }

  /** Tells whether a value is a EntryNotFoundError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<EntryNotFoundError>(
    "@arbor/session-store:EntryNotFoundError",
  );
}

/**
 * An entry appended with its own id (`Session.appendEntries`) whose id the session
 * already holds, or that appears twice in the batch. Nothing was written.
 */
export class DuplicateEntryIdError extends SessionStoreError {
  override readonly name = "DuplicateEntryIdError";
  constructor(readonly entryId: string) {
    super(
      "duplicate_entry_id",
      `entry id "${entryId}" is already taken in this session (or repeats in the batch); nothing was written`,
    );
  }

  /** Tells whether a value is a DuplicateEntryIdError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<DuplicateEntryIdError>(
    "@arbor/session-store:DuplicateEntryIdError",
  );
}

/** A write on a session opened read-only, or closed. */
export class SessionReadOnlyError extends SessionStoreError {
  override readonly name = "SessionReadOnlyError";
  constructor(reason: string) {
    super("read_only", `this session cannot be written: ${reason}`);
  }

  /** Tells whether a value is a SessionReadOnlyError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionReadOnlyError>(
    "@arbor/session-store:SessionReadOnlyError",
  );
}

/** Where an entry failed its check: a dotted path into the entry, and what is wrong there. */
export interface EntryIssue {
  /** The field, as a dotted path from the entry (`message.timestamp`, `data.items.2`). */
  field: string;
  reason: string;
}

/**
 * An entry that cannot be stored: it fails its schema, or it does not survive JSON (a
 * BigInt, a cycle, a function, a symbol, NaN, a Map, a Date). Nothing was written and the
 * session is as it was before the append.
 */
export class InvalidEntryError extends SessionStoreError {
  override readonly name = "InvalidEntryError";
  constructor(
    readonly entryType: string,
    readonly issue: EntryIssue,
  ) {
    super(
      "invalid_entry",
      `cannot store this ${entryType} entry: ${issue.field || "(entry)"} ${issue.reason}. Nothing was written.`,
    );
  }

  /** Tells whether a value is an InvalidEntryError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<InvalidEntryError>(
    "@arbor/session-store:InvalidEntryError",
  );
}

/**
 * How a session file changed under its writer: `deleted`, `replaced` (another file was put
 * at its path), `truncated` (shorter than what was written), or `grown` (written to by
 * someone else).
 */
export type SessionFileChange = "deleted" | "replaced" | "truncated" | "grown";

/**
 * The session file changed under the session writing it. A replaced, truncated or grown
 * file is never written again by this session (the other program's bytes stay as they
 * are); the session's entries are still in memory.
 */
export class SessionFileChangedError extends SessionStoreError {
  override readonly name = "SessionFileChangedError";
  constructor(
    readonly path: string,
    readonly change: SessionFileChange,
    detail: string,
  ) {
    super(
      change === "deleted" ? "file_deleted" : `file_${change}`,
      `${path} was ${change} while the session was open: ${detail}`,
    );
  }

  /** Tells whether a value is a SessionFileChangedError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionFileChangedError>(
    "@arbor/session-store:SessionFileChangedError",
  );
}

/** What kind of failure a {@link SessionIoError} is. */
export type SessionIoProblem = "disk_full" | "permission_denied" | "io_error";

/**
 * The operating system refused a read or write of a session file (a full disk, missing
 * permission, an I/O error). A failed append leaves the file and the session as they were,
 * so the session can append again once the cause is gone.
 */
export class SessionIoError extends SessionStoreError {
  override readonly name = "SessionIoError";
  constructor(
    readonly path: string,
    readonly problem: SessionIoProblem,
    /** What was being done: `append`, `read`, `lock`, `replace`, … */
    readonly operation: string,
    /** The system error code (`ENOSPC`, `EACCES`, …). */
    readonly errno: string | undefined,
    options?: ErrorOptions,
  ) {
    super(problem, ioMessage(path, problem, operation, errno), options);
  }

  /** Tells whether a value is a SessionIoError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionIoError>(
    "@arbor/session-store:SessionIoError",
  );
}

function ioMessage(
  path: string,
  problem: SessionIoProblem,
  operation: string,
  errno: string | undefined,
): string {
  const what = `${operation} of ${path} failed`;
  if (problem === "disk_full")
    return `${what}: the disk is full (${errno}). Free some space and try again; nothing was lost.`;
  if (problem === "permission_denied")
    return `${what}: permission denied (${errno}). Check the file's and its directory's permissions.`;
  return `${what} (${errno ?? "unknown error"}).`;
}
