import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { link, mkdir, open, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { SessionFileChangedError, SessionStoreError } from "../errors/index.js";
import { ListingIndexKeeper } from "../listing-index-keeper.js";
import { sessionFileName } from "../session-options.js";
import {
  datasync,
  messageOf,
  requireRegular,
  statOrUndefined,
  type WriteFn,
  writeAll,
} from "./file-io.js";
import { acquireFileLock, type StaleLockPolicy } from "./file-lock.js";
import { removeDeadTempFiles, syncDirectory } from "./file-replace.js";
import { toStoreError } from "./io-errors.js";
import { logTail, tornTailProblem } from "./log-tail.js";
import type { Durability, HeldSession, SessionStorage, StoredLog } from "./session-storage.js";

/** What an append without its own fsync resolves with: one settled promise, shared. */
const WRITTEN: Promise<void> = Promise.resolve();

/** How often, at most, an append also checks the path (a file renamed over it). */
const PATH_CHECK_MS = 100;

/**
 * Appends made in one turn of the event loop share one check of the open file, for at most
 * this long: nothing of this process can change the file between them, and another
 * process's change is a race a per-append check could lose just the same.
 */
const SAME_TURN_CHECK_MS = 1;

export type { WriteFn } from "./file-io.js";

/** Options of {@link FileSessionStorage}. */
export interface FileStorageOptions {
  durability?: Durability;
  /** With `batch` durability, the longest an append waits for its fsync. Default 50 ms. */
  batchIntervalMs?: number;
  /** What to do with a lock left by a process that is gone. Default `auto`. */
  staleLockPolicy?: StaleLockPolicy;
  /** Seam: the write an append makes (`fs.writeSync` by default). */
  write?: WriteFn;
  /**
   * Keep the session's record in its directory's listing index (`.arbor-index.json`)
   * current while a session holds this storage, so a listing need not scan the file.
   * Default: on when the directory already has an index (it has been listed).
   */
  keepListingIndex?: boolean;
  /** How long after an append the listing index record is updated. Default 1000 ms. */
  listingIndexDelayMs?: number;
}

/** The file a storage knows it writes: its identity and the length it should have. */
interface KnownFile {
  dev: number;
  ino: number;
  size: number;
}

/**
 * The default backend: one JSONL file. An append is one synchronous `write` of whole lines
 * (so appends land in call order and a crash never interleaves them); only the fsync is
 * asynchronous, and appends made while one runs share the next (group commit).
 *
 * Before an append the open file is checked (one `fstat`): deleted, truncated or grown by
 * someone else is noticed before a byte is written. Appends made in one turn of the event
 * loop (a burst) share one check for up to 1 ms. The path is checked too, at most every
 * 100 ms, for a file renamed over it. A failed write is cut back off, so the file is
 * what it was, and later appends are refused until {@link FileSessionStorage.resume}.
 */
export class FileSessionStorage implements SessionStorage {
  readonly durability: Durability;
  private readonly batchIntervalMs: number;
  private readonly staleLockPolicy: StaleLockPolicy;
  private readonly writeFn: WriteFn;
  private fd: number | undefined;
  private known: KnownFile | undefined;
  private release: (() => Promise<void>) | undefined;
  private runningSync: Promise<void> = Promise.resolve();
  private nextSync: Promise<void> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;
  /** When the open file was last checked, while in the same event-loop turn; else undefined. */
  private fileCheckedThisTurn: number | undefined;
  /** Set when an append failed: later ones are refused until `resume()`. */
  private failure: unknown;
  /** Set when a failure left the file in a state it cannot vouch for (a failed fsync). */
  private broken = false;
  private readonly listingIndex: { keepListingIndex?: boolean; listingIndexDelayMs?: number };
  /** The session holding this storage for writing, once it said so. */
  private held: HeldSession | undefined;
  /** Keeps the session's listing index record, while held. */
  private keeper: ListingIndexKeeper | undefined;
  /** Set when the file was replaced or cut by another program: no index record of it then. */
  private lostFile = false;

  constructor(
    readonly location: string,
    options: FileStorageOptions = {},
  ) {
    this.durability = options.durability ?? "always";
    this.batchIntervalMs = options.batchIntervalMs ?? 50;
    this.staleLockPolicy = options.staleLockPolicy ?? "auto";
    this.writeFn = options.write ?? ((fd, data) => writeSync(fd, data as string));
    this.listingIndex = {
      ...(options.keepListingIndex !== undefined
        ? { keepListingIndex: options.keepListingIndex }
        : {}),
      ...(options.listingIndexDelayMs !== undefined
        ? { listingIndexDelayMs: options.listingIndexDelayMs }
        : {}),
    };
  }

  /**
   * {@inheritDoc SessionStorage.sibling}
   * A file in the same folder; its listing index record is kept when this one's is.
   */
  sibling(sessionId: string, createdAt: number): FileSessionStorage {
    const path = join(dirname(this.location), sessionFileName(sessionId, createdAt));
    return new FileSessionStorage(path, {
      durability: this.durability,
      ...(this.keeper ? { keepListingIndex: true } : {}),
    });
  }

  /**
   * {@inheritDoc SessionStorage.read}
   * Locked for writing, a torn last line is first copied to a sidecar file
   * (`<file>.torn-<time>`) and cut off, and a last line missing its newline completed.
   */
  async read(): Promise<StoredLog | undefined> {
    const bytes = this.readBytes();
    if (!bytes) return undefined;
    if (!this.release) return { content: bytes, problems: [] };
    const tail = logTail(bytes);
    if (tail.kind === "whole") return { content: bytes, problems: [] };
    if (tail.kind === "needs_newline") {
      await this.append([""]);
      return { content: Buffer.concat([bytes, Buffer.of(0x0a)]), problems: [] };
    }
    const keptIn = await this.setAsideTail(bytes, tail.offset);
    return {
      content: bytes.subarray(0, tail.offset),
      problems: [tornTailProblem(tail, basename(keptIn))],
    };
  }

  /** {@inheritDoc SessionStorage.hold} Starts keeping the listing index record, if asked to. */
  hold(session: HeldSession): void {
    this.held = session;
    this.keeper = ListingIndexKeeper.start(this.listingIndex, {
      location: this.location,
      flush: () => session.flush(),
      listingState: () => (this.lostFile ? undefined : session.listingState()),
    });
  }

  /** {@inheritDoc SessionStorage.publish} */
  async publish(): Promise<void> {
    await this.keeper?.update();
  }

  /** The file's bytes, or undefined when there is no file or it is empty. */
  private readBytes(): Uint8Array | undefined {
    // Read synchronously: a session parses its bytes synchronously right after, which blocks
    // far longer than the read, so an asynchronous read buys no responsiveness.
    let fd: number;
    try {
      // Non-blocking: opening a FIFO must not wait for a writer. Checked before reading.
      fd = openSync(this.location, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw toStoreError(error, this.location, "read");
    }
    try {
      const stats = fstatSync(fd);
      requireRegular(this.location, stats);
      const bytes = readFileSync(fd);
      this.known = { dev: stats.dev, ino: stats.ino, size: bytes.length };
      return bytes.length === 0 ? undefined : bytes;
    } catch (error) {
      throw toStoreError(error, this.location, "read");
    } finally {
      closeSync(fd);
    }
  }

  /** {@inheritDoc SessionStorage.lock} */
  async lock(): Promise<void> {
    if (this.release) return;
    try {
      await mkdir(dirname(this.location), { recursive: true });
      this.release = await acquireFileLock(this.location, this.staleLockPolicy);
    } catch (error) {
      throw toStoreError(error, this.location, "lock");
    }
  }

  /** {@inheritDoc SessionStorage.append} */
  append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    this.keeper?.touched();
    if (this.failure !== undefined) {
      return Promise.reject(
        new SessionStoreError(
          "append_aborted",
          `not written to ${this.location}: an earlier append failed (${messageOf(this.failure)}) and this one came after it`,
        ),
      );
    }
    let fd: number;
    let known: KnownFile;
    try {
      fd = this.openForAppend();
      known = this.known as KnownFile;
      this.checkOpenFile(fd, known);
    } catch (error) {
      return Promise.reject(toStoreError(error, this.location, "append"));
    }
    try {
      known.size += writeAll(this.writeFn, fd, `${lines.join("\n")}\n`);
    } catch (error) {
      this.failure = toStoreError(error, this.location, "append");
      try {
        // Cut off whatever part of the lines reached the file, so it ends as it did.
        ftruncateSync(fd, known.size);
      } catch {
        this.broken = true;
      }
      return Promise.reject(this.failure);
    }
    if (this.durability === "always") return this.syncAfterWrite();
    if (this.durability === "batch") this.scheduleSync();
    return WRITTEN;
  }

  /** {@inheritDoc SessionStorage.resume} */
  resume(): boolean {
    if (this.broken) return false;
    this.failure = undefined;
    return true;
  }

  /** Resolves after an fsync that started after this call: the running one may predate the write. */
  private syncAfterWrite(): Promise<void> {
    this.nextSync ??= this.runningSync.then(() => {
      this.nextSync = undefined;
      const fd = this.fd;
      this.runningSync =
        fd === undefined
          ? Promise.resolve()
          : datasync(fd).catch((error: unknown) => {
              // The written lines may or may not be on disk: this storage cannot go on.
              this.broken = true;
              this.failure = toStoreError(error, this.location, "fsync");
              throw this.failure;
            });
      return this.runningSync;
    });
    return this.nextSync;
  }

  private scheduleSync(): void {
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      void this.syncAfterWrite().catch(() => undefined);
    }, this.batchIntervalMs);
  }

  /**
   * Checks the open file now, whoever checked it last.
   * @throws SessionFileChangedError when the file was deleted, replaced, truncated or grown
   */
  private ensureIntact(): void {
    if (this.fd === undefined || !this.known) return;
    this.checkedAt = Number.NEGATIVE_INFINITY;
    this.fileCheckedThisTurn = undefined;
    this.checkOpenFile(this.fd, this.known);
  }

  /** The open file must still be ours, at its path, as long as we wrote it. */
  private checkOpenFile(fd: number, known: KnownFile): void {
    const now = performance.now();
    const sameTurn = this.fileCheckedThisTurn;
    if (sameTurn !== undefined && now - sameTurn < SAME_TURN_CHECK_MS) return;
    const stats = fstatSync(fd);
    if (stats.nlink === 0) throw this.changeAtPath(known);
    if (stats.size !== known.size) {
      const change = stats.size < known.size ? "truncated" : "grown";
      throw new SessionFileChangedError(
        this.location,
        change,
        `it holds ${stats.size} bytes where this session wrote ${known.size}; it is no longer written by this session`,
      );
    }
    if (now - this.checkedAt > PATH_CHECK_MS) {
      this.checkedAt = now;
      const atPath = statOrUndefined(this.location);
      if (!atPath || atPath.ino !== known.ino || atPath.dev !== known.dev) {
        throw this.changeAtPath(known);
      }
    }
    // Only a check that passed is shared with the appends after it in this turn.
    if (sameTurn === undefined) {
      setImmediate(() => {
        this.fileCheckedThisTurn = undefined;
      }).unref();
    }
    this.fileCheckedThisTurn = now;
  }

  /** Tells a deleted file (nothing at the path: the session may recreate it) from a replaced one. */
  private changeAtPath(known: KnownFile): SessionFileChangedError {
    const atPath = statOrUndefined(this.location);
    if (!atPath) {
      return new SessionFileChangedError(this.location, "deleted", "nothing is at its path now");
    }
    if (atPath.ino === known.ino && atPath.dev === known.dev) {
      return new SessionFileChangedError(this.location, "deleted", "its last link was removed");
    }
    return new SessionFileChangedError(
      this.location,
      "replaced",
      "another file was put at its path; that file is left as it is and not written by this session",
    );
  }

  private openForAppend(): number {
    if (this.fd !== undefined) return this.fd;
    // Never O_CREAT: the file is created whole (header first) by `replace`. A file that
    // vanished before the first append would otherwise come back headerless. Non-blocking,
    // so a FIFO put at the path fails at once instead of waiting for a reader.
    let fd: number;
    try {
      fd = openSync(this.location, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      throw new SessionFileChangedError(this.location, "deleted", "nothing is at its path now");
    }
    try {
      const stats = fstatSync(fd);
      requireRegular(this.location, stats);
      const known = this.known;
      if (known && (known.ino !== stats.ino || known.dev !== stats.dev)) {
        throw new SessionFileChangedError(
          this.location,
          "replaced",
          "another file was put at its path; that file is left as it is and not written by this session",
        );
      }
      this.known = known ?? { dev: stats.dev, ino: stats.ino, size: stats.size };
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    this.fd = fd;
    this.checkedAt = performance.now();
    return fd;
  }

  /**
   * {@inheritDoc SessionStorage.replace}
   * @throws SessionFileChangedError when another file was put at the path since this storage read or wrote it
   */
  async replace(lines: readonly string[], backupSuffix?: string): Promise<void> {
    try {
      await this.replaceFile(lines, backupSuffix);
    } catch (error) {
      throw toStoreError(error, this.location, "replace");
    }
  }

  private async replaceFile(lines: readonly string[], backupSuffix?: string): Promise<void> {
    await mkdir(dirname(this.location), { recursive: true });
    await removeDeadTempFiles(this.location);
    const temp = `${this.location}.tmp-${process.pid}-${Date.now()}`;
    const text = lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    const handle = await open(temp, "w");
    try {
      await handle.write(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      const atPath = await stat(this.location).catch(() => undefined);
      if (
        atPath &&
        this.known &&
        (atPath.ino !== this.known.ino || atPath.dev !== this.known.dev)
      ) {
        throw this.changeAtPath(this.known);
      }
      if (atPath) requireRegular(this.location, atPath);
      if (backupSuffix && atPath) {
        const current = this.readBytes();
        // Flushed: the backup must be on disk before the rename replaces what it keeps.
        if (current) await writeFile(`${this.location}${backupSuffix}`, current, { flush: true });
      }
      await this.closeHandle();
      const written = await stat(temp);
      if (atPath) await rename(temp, this.location);
      else {
        // Nothing there: link, which never overwrites a file another program just created.
        await link(temp, this.location);
        await rm(temp, { force: true });
      }
      this.known = { dev: written.dev, ino: written.ino, size: written.size };
      this.failure = undefined;
      this.broken = false;
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await syncDirectory(dirname(this.location));
  }

  /** Copies the bytes from `offset` on to a sidecar file, then cuts them off the file. */
  private async setAsideTail(bytes: Uint8Array, offset: number): Promise<string> {
    const sidecar = `${this.location}.torn-${Date.now()}`;
    await writeFile(sidecar, bytes.subarray(offset), { flush: true });
    await this.closeHandle();
    await truncate(this.location, offset);
    if (this.known) this.known.size = offset;
    return sidecar;
  }

  /**
   * {@inheritDoc SessionStorage.close}
   * A file deleted while held is recreated whole from the session; a file another program
   * replaced or cut is left as it is (and gets no listing index record).
   */
  async close(): Promise<void> {
    const held = this.held;
    this.held = undefined;
    let failure: unknown;
    if (held?.writable()) {
      try {
        this.ensureIntact();
      } catch (error) {
        if (SessionFileChangedError.isInstance(error) && error.change === "deleted") {
          await this.replace(held.wholeLog()).catch((e: unknown) => {
            failure = e;
          });
        } else if (SessionFileChangedError.isInstance(error)) this.lostFile = true;
        else failure = error;
      }
    }
    await this.keeper?.stop();
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
      await this.syncAfterWrite().catch(() => undefined);
    }
    await this.closeHandle();
    await this.release?.();
    this.release = undefined;
    if (failure !== undefined) throw failure;
  }

  /** {@inheritDoc SessionStorage.delete} Removes its listing index record too. */
  async delete(): Promise<void> {
    await this.close();
    const keeper = this.keeper;
    this.keeper = undefined;
    await keeper?.remove();
    const atPath = statOrUndefined(this.location);
    // Never delete a file that another program put at the path.
    if (atPath && this.known && (atPath.ino !== this.known.ino || atPath.dev !== this.known.dev)) {
      throw this.changeAtPath(this.known);
    }
    await rm(this.location, { force: true });
  }

  private async closeHandle(): Promise<void> {
    await this.nextSync?.catch(() => undefined);
    await this.runningSync.catch(() => undefined);
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) closeSync(fd);
  }
}
