import { SessionLockedError } from "../errors/index.js";
import { logTail, tornTailProblem } from "./log-tail.js";
import type { SessionStorage, StoredLog } from "./session-storage.js";

interface Cell {
  chunks: string[];
  stored: boolean;
  locked: boolean;
}

/** Sessions in memory by name: every storage made with the same name sees the same bytes. */
const cells = new Map<string, Cell>();

/**
 * A backend that keeps the lines in memory, for tests, previews and sessions that should
 * leave no trace. Storages made with the same `location` in one process share their bytes
 * and their lock, like two handles on one file.
 */
export class MemorySessionStorage implements SessionStorage {
  private holdsLock = false;
  /** Copies kept aside (backups, torn tails), by name. */
  readonly sideFiles = new Map<string, Uint8Array>();

  constructor(readonly location = `memory:${crypto.randomUUID()}`) {}

  /** A storage seeded with raw text, as if a file written by another program held it. */
  static from(text: string, location?: string): MemorySessionStorage {
    const storage = new MemorySessionStorage(location);
    storage.cell.chunks = [text];
    storage.cell.stored = text.length > 0;
    return storage;
  }

  private get cell(): Cell {
    let cell = cells.get(this.location);
    if (!cell) {
      cell = { chunks: [], stored: false, locked: false };
      cells.set(this.location, cell);
    }
    return cell;
  }

  /**
   * {@inheritDoc SessionStorage.read}
   * Locked for writing, a torn last line is kept aside in {@link sideFiles} and cut off, and
   * a last line missing its newline completed.
   */
  async read(): Promise<StoredLog | undefined> {
    const bytes = this.bytes();
    if (!bytes) return undefined;
    if (!this.holdsLock) return { content: bytes, problems: [] };
    const tail = logTail(bytes);
    if (tail.kind === "whole") return { content: bytes, problems: [] };
    if (tail.kind === "needs_newline") {
      await this.append([""]);
      return { content: this.bytes() ?? bytes, problems: [] };
    }
    const name = `${this.location}.torn-${this.sideFiles.size}`;
    this.sideFiles.set(name, bytes.subarray(tail.offset));
    this.cell.chunks = [Buffer.from(bytes.subarray(0, tail.offset)).toString("utf8")];
    return { content: bytes.subarray(0, tail.offset), problems: [tornTailProblem(tail, name)] };
  }

  /** The stored bytes, or undefined when nothing is stored. */
  bytes(): Uint8Array | undefined {
    return this.cell.stored ? Buffer.from(this.cell.chunks.join(""), "utf8") : undefined;
  }

  /** {@inheritDoc SessionStorage.lock} */
  async lock(): Promise<void> {
    if (this.holdsLock) return;
    if (this.cell.locked) throw new SessionLockedError(this.location, process.pid);
    this.cell.locked = true;
    this.holdsLock = true;
  }

  /** {@inheritDoc SessionStorage.append} */
  async append(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    this.cell.chunks.push(`${lines.join("\n")}\n`);
    this.cell.stored = true;
  }

  /** {@inheritDoc SessionStorage.resume} */
  resume(): boolean {
    return true;
  }

  /** {@inheritDoc SessionStorage.replace} */
  async replace(lines: readonly string[], backupSuffix?: string): Promise<void> {
    const current = this.bytes();
    if (backupSuffix && current) this.sideFiles.set(`${this.location}${backupSuffix}`, current);
    this.cell.chunks = lines.length === 0 ? [] : [`${lines.join("\n")}\n`];
    this.cell.stored = true;
  }

  /** {@inheritDoc SessionStorage.close} */
  async close(): Promise<void> {
    if (this.holdsLock) this.cell.locked = false;
    this.holdsLock = false;
  }

  /** {@inheritDoc SessionStorage.delete} */
  async delete(): Promise<void> {
    await this.close();
    cells.delete(this.location);
  }
}
