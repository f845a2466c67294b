import {
  closeSync,
  constants,
  fdatasync,
  fstatSync,
  openSync,
  readFileSync,
  writeSync,
} from "node:fs";
import { mkdir, open, readdir, rename, rm, truncate, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { SessionStoreError } from "../errors.js";
import { acquireFileLock, isAlive } from "./file-lock.js";
import type { Durability, SessionStorage } from "./session-storage.js";

/** What an append without its own fsync resolves with: one settled promise, shared. */
const WRITTEN: Promise<void> = Promise.resolve();

/** How often, at most, an append checks that the file was not deleted under it. */
const DELETION_CHECK_MS = 100;

/** Options of {@link FileSessionStorage}. */
export interface FileStorageOptions {
  durability?: Durability;
  /** With `batch` durability, the longest an append waits for its fsync. Default 50 ms. */
  batchIntervalMs?: number;
}

/**
 * The default backend: one JSONL file. An append is one synchronous `write` of whole lines
 * (so appends land in call order and a crash never interleaves them); only the fsync is
 * asynchronous, and appends made while one runs share the next (group commit).
 */
export class FileSessionStorage implements SessionStorage {
  readonly durability: Durability;
  private readonly batchIntervalMs: number;
  private fd: number | undefined;
  private release: (() => Promise<void>) | undefined;
  private runningSync: Promise<void> = Promise.resolve();
  private nextSync: Promise<void> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;
  private checkedAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly location: string,
    options: FileStorageOptions = {},
  ) {
    this.durability = options.durability ?? "always";
    this.batchIntervalMs = options.batchIntervalMs ?? 50;
  }

  /** {@inheritDoc SessionStorage.read} */
  async read(): Promise<Uint8Array | undefined> {
    // Read synchronously: a session parses its bytes synchronously right after, which blocks
    // far longer than the read, so an asynchronous read buys no responsiveness. It only adds
    // thread-pool round trips (open, stat, reads, close), each a wait for a scheduler slot
    // on a busy machine, and costs more than the read for all but the largest files.
    try {
      const bytes = readFileSync(this.location);
      return bytes.length === 0 ? undefined : bytes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  /** {@inheritDoc SessionStorage.lock} */
  async lock(): Promise<void> {
    if (this.release) return;
    await mkdir(dirname(this.location), { recursive: true });
    this.release = await acquireFileLock(this.location);
  }

  /** {@inheritDoc SessionStorage.append} */
  append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    try {
      const fd = this.openForAppend();
      // An fstat costs more than the write; a deleted file is noticed within DELETION_CHECK_MS
      // (and at close), and the session then rewrites everything it holds, so nothing is lost.
      const now = performance.now();
      if (now - this.checkedAt > DELETION_CHECK_MS) {
        this.checkedAt = now;
        this.ensureIntact();
      }
      writeAll(fd, `${lines.join("\n")}\n`);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.durability === "always") return this.syncAfterWrite();
    if (this.durability === "batch") this.scheduleSync();
    return WRITTEN;
  }

  /** Resolves after an fsync that started after this call: the running one may predate the write. */
  private syncAfterWrite(): Promise<void> {
    this.nextSync ??= this.runningSync.then(() => {
      this.nextSync = undefined;
      const fd = this.fd;
      this.runningSync = fd === undefined ? Promise.resolve() : datasync(fd);
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

  /** @throws SessionStoreError `file_deleted` when the open file was deleted (or replaced). */
  ensureIntact(): void {
    if (this.fd !== undefined && fstatSync(this.fd).nlink === 0) {
      throw new SessionStoreError(
        "file_deleted",
        `${this.location} was deleted while the session was open`,
      );
    }
  }

  private openForAppend(): number {
    if (this.fd === undefined) {
      // Never O_CREAT: the file is created whole (header first) by `replace`. A file that
      // vanished before the first append would otherwise come back headerless.
      try {
        this.fd = openSync(this.location, constants.O_WRONLY | constants.O_APPEND);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        throw new SessionStoreError(
          "file_deleted",
          `${this.location} was deleted while the session was open`,
        );
      }
    }
    return this.fd;
  }

  /** {@inheritDoc SessionStorage.replace} */
  async replace(lines: readonly string[], backupSuffix?: string): Promise<void> {
    await mkdir(dirname(this.location), { recursive: true });
    await removeDeadTempFiles(this.location);
    const temp = `${this.location}.tmp-${process.pid}-${Date.now()}`;
    const handle = await open(temp, "w");
    try {
      await handle.write(lines.length === 0 ? "" : `${lines.join("\n")}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (backupSuffix) {
      const current = await this.read();
      // Flushed: the backup must be on disk before the rename replaces what it keeps.
      if (current) await writeFile(`${this.location}${backupSuffix}`, current, { flush: true });
    }
    await this.closeHandle();
    await rename(temp, this.location);
    await syncDirectory(dirname(this.location));
  }

  /** {@inheritDoc SessionStorage.setAsideTail} */
  async setAsideTail(offset: number, length: number): Promise<string> {
    const bytes = await this.read();
    const sidecar = `${this.location}.torn-${Date.now()}`;
    await writeFile(sidecar, (bytes ?? new Uint8Array()).subarray(offset, offset + length), {
      flush: true,
    });
    await this.closeHandle();
    await truncate(this.location, offset);
    return sidecar;
  }

  /** {@inheritDoc SessionStorage.close} */
  async close(): Promise<void> {
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
      await this.syncAfterWrite().catch(() => undefined);
    }
    await this.closeHandle();
    await this.release?.();
    this.release = undefined;
  }

  /** {@inheritDoc SessionStorage.delete} */
  async delete(): Promise<void> {
    await this.close();
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

function writeAll(fd: number, text: string): void {
  // One write for the common case; a short write (full disk, signals) continues from where it stopped.
  const written = writeSync(fd, text);
  if (written === Buffer.byteLength(text, "utf8")) return;
  const bytes = Buffer.from(text, "utf8");
  let offset = written;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fdatasync(fd, (error) => (error ? reject(error) : resolve())),
  );
}

/**
 * Removes the temporary files of earlier replacements of `location` whose process died
 * before renaming them (`<file>.tmp-<pid>-<time>`); a live process's file is left alone.
 */
async function removeDeadTempFiles(location: string): Promise<void> {
  const prefix = `${basename(location)}.tmp-`;
  const names = await readdir(dirname(location)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-\d+$/.exec(name.slice(prefix.length))?.[1]);
    if (pid && pid !== process.pid && !isAlive(pid)) {
      await rm(join(dirname(location), name), { force: true });
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename itself is still atomic.
  }
}
