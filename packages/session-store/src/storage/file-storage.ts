import {
  type FileHandle,
  mkdir,
  open,
  readFile,
  rename,
  rm,
  truncate,
  writeFile,
} from "node:fs/promises";
import { dirname } from "node:path";
import { SessionStoreError } from "../errors.js";
import { acquireFileLock } from "./file-lock.js";
import type { Durability, SessionStorage } from "./session-storage.js";

/** Options of {@link FileSessionStorage}. */
export interface FileStorageOptions {
  durability?: Durability;
  /** With `batch` durability, the longest an append waits for its fsync. Default 50 ms. */
  batchIntervalMs?: number;
}

interface PendingAppend {
  text: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The default backend: one JSONL file, appended through one handle. Appends are queued and
 * written in order, several at a time when they pile up (group commit).
 */
export class FileSessionStorage implements SessionStorage {
  readonly durability: Durability;
  private readonly batchIntervalMs: number;
  private handle: FileHandle | undefined;
  private release: (() => Promise<void>) | undefined;
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private syncTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly location: string,
    options: FileStorageOptions = {},
  ) {
    this.durability = options.durability ?? "always";
    this.batchIntervalMs = options.batchIntervalMs ?? 50;
  }

  async read(): Promise<Uint8Array | undefined> {
    try {
      const bytes = await readFile(this.location);
      return bytes.length === 0 ? undefined : bytes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  async lock(): Promise<void> {
    if (this.release) return;
    await mkdir(dirname(this.location), { recursive: true });
    this.release = await acquireFileLock(this.location);
  }

  append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ text: `${lines.join("\n")}\n`, resolve, reject });
      this.flushing ??= this.flush();
    });
  }

  private async flush(): Promise<void> {
    // Waiting one microtask lets appends made in the same tick share a write.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        const handle = await this.openForAppend();
        const stat = await handle.stat();
        if (stat.nlink === 0) {
          throw new SessionStoreError(
            "file_deleted",
            `${this.location} was deleted while the session was open`,
          );
        }
        await handle.write(batch.map((item) => item.text).join(""));
        if (this.durability === "always") await handle.datasync();
        else if (this.durability === "batch") this.scheduleSync();
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    this.flushing = undefined;
  }

  private scheduleSync(): void {
    this.syncTimer ??= setTimeout(() => {
      this.syncTimer = undefined;
      void this.handle?.datasync().catch(() => undefined);
    }, this.batchIntervalMs);
  }

  private async openForAppend(): Promise<FileHandle> {
    if (!this.handle) {
      await mkdir(dirname(this.location), { recursive: true });
      this.handle = await open(this.location, "a");
    }
    return this.handle;
  }

  async replace(lines: readonly string[], backupSuffix?: string): Promise<void> {
    await this.flushing;
    await mkdir(dirname(this.location), { recursive: true });
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
      if (current) await writeFile(`${this.location}${backupSuffix}`, current);
    }
    await this.closeHandle();
    await rename(temp, this.location);
    await syncDirectory(dirname(this.location));
  }

  async setAsideTail(offset: number, length: number): Promise<string> {
    await this.flushing;
    const bytes = await this.read();
    const sidecar = `${this.location}.torn-${Date.now()}`;
    await writeFile(sidecar, (bytes ?? new Uint8Array()).subarray(offset, offset + length), {
      flush: true,
    });
    await this.closeHandle();
    await truncate(this.location, offset);
    return sidecar;
  }

  async close(): Promise<void> {
    await this.flushing;
    if (this.syncTimer) {
      clearTimeout(this.syncTimer);
      this.syncTimer = undefined;
      if (this.durability === "batch") await this.handle?.datasync().catch(() => undefined);
    }
    await this.closeHandle();
    await this.release?.();
    this.release = undefined;
  }

  async delete(): Promise<void> {
    await this.close();
    await rm(this.location, { force: true });
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close();
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
