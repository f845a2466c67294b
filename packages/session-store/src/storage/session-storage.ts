/**
 * How much an append is worth before its promise resolves:
 * - `always`: written and fsynced (an acknowledged append survives power loss);
 * - `batch`: written at once, fsynced in groups (appends made together share one fsync);
 * - `never`: written, left to the operating system to flush.
 */
export type Durability = "always" | "batch" | "never";

import type { LogProblem, StoredContent } from "../format/session-log.js";
import type { ListingState } from "../listing-index.js";

/** What a storage hands a session when it opens: its lines, and what was wrong with them. */
export interface StoredLog {
  /**
   * The stored lines, each ended by a newline: bytes as stored, text a backend already holds
   * decoded, or such text in pieces (read in place, never joined: a database's chunks of
   * rows). Opened for writing (after `lock()`), every line is whole: a torn last line is set
   * aside and a last line missing only its newline completed, by the storage.
   */
  content: StoredContent;
  /** What the storage found in the lines and dealt with (a torn last line set aside). */
  problems: LogProblem[];
}

/**
 * The session a storage serves, as {@link SessionStorage.hold} sees it: what a storage may
 * need to keep records beside the log (a listing index) or to rebuild a log it lost.
 */
export interface HeldSession {
  /** Resolves when every append made so far has settled. */
  flush(): Promise<void>;
  /** What a listing shows of the session; undefined when memory and storage may differ. */
  listingState(): ListingState | undefined;
  /** False once the session stopped writing (a failed or refused write): its copy is not used. */
  writable(): boolean;
  /** The whole session as lines: header, entries, a leaf pointer if the leaf moved. */
  wholeLog(): string[];
}

/**
 * Where a session's lines live. Every backend passes the same contract suite
 * (`sessionStorageContract`, exported from `@arbor/session-store/test`). The interface is async so remote backends fit.
 * Lines are whole JSON texts without their newline; the backend owns framing.
 */
export interface SessionStorage {
  /** A human-readable name of the location, for messages (a path, a URL, a key). */
  readonly location: string;
  /**
   * The stored lines and the problems the storage found in them, or undefined when nothing
   * is stored yet. Called after `lock()` by a writer: the storage repairs the framing (a
   * torn last line kept aside, a missing last newline added) before it answers.
   */
  read(): Promise<StoredLog | undefined>;
  /**
   * Takes the right to write; a second writer is refused with `SessionLockedError`.
   * Read-only users never call it and are never blocked.
   */
  lock(): Promise<void>;
  /**
   * Appends lines; resolves once they are as durable as the storage's durability says.
   * When it rejects, none of the lines is stored, and a backend with {@link resume}
   * refuses every later append until `resume()` is called (the session first drops what
   * depended on the failed lines).
   */
  append(lines: readonly string[]): Promise<void>;
  /**
   * Takes appends again after one failed. Returns false when the backend cannot vouch for
   * what it stored (a failed fsync): the session must then be reopened. Backends without
   * it leave a session that saw a failed append unable to write until reopened.
   */
  resume?(): boolean;
  /**
   * A new, empty storage beside this one, for a session forked from it (for files: a file
   * in the same folder, named as pi names them). Without it, `fork()` asks where to go.
   */
  sibling?(sessionId: string, createdAt: number): SessionStorage;
  /**
   * Replaces everything atomically (a reader sees the old or the new content, never a mix).
   * @param backupSuffix - when given, the previous content is kept beside it under this suffix
   */
  replace(lines: readonly string[], backupSuffix?: string): Promise<void>;
  /**
   * Told once a session opened for writing holds this storage: a storage that keeps records
   * beside the log (a listing index) or can lose its data from under the session (a file
   * deleted while open, recreated whole at close) keeps the session to ask.
   */
  hold?(session: HeldSession): void;
  /**
   * Brings what the storage keeps beside the log (a listing index record) up to date now;
   * a session calls it after its title changed. Never rejects.
   */
  publish?(): Promise<void>;
  /**
   * Releases the lock and any handle. Idempotent. A storage whose data vanished while held
   * (a deleted file) recreates it from the held session's {@link HeldSession.wholeLog} first.
   */
  close(): Promise<void>;
  /** Deletes the stored session. */
  delete(): Promise<void>;
}
