import { createHash } from "node:crypto";
import { join } from "node:path";
import { generateSessionId } from "./ids.js";
import { Session } from "./session.js";
import { type OpenStorageOptions, type SessionSeams, sessionFileName } from "./session-options.js";
import type { StaleLockPolicy } from "./storage/file-lock.js";
import { FileSessionStorage } from "./storage/file-storage.js";
import type { Durability } from "./storage/session-storage.js";

/** Options of {@link openSessionFile}. */
export interface OpenSessionFileOptions extends SessionSeams {
  /** Never write or lock; other writers are not blocked. Default false. */
  readOnly?: boolean;
  /** Create the file (with its header) when it does not exist. Default false. */
  create?: boolean;
  /** The working directory recorded when the file is created. */
  cwd?: string;
  /** How durable an append is before it resolves. Default `always`. */
  durability?: Durability;
  /** What to do with a lock left by a process that is gone. Default `auto`. */
  staleLockPolicy?: StaleLockPolicy;
  /**
   * Keep the session's record in the directory's listing index current. Default: on when
   * the directory already has an index (it has been listed), so a file opened elsewhere
   * does not get an index beside it.
   */
  keepListingIndex?: boolean;
  /** How long after an append the listing index record is updated. Default 1000 ms. */
  listingIndexDelayMs?: number;
}

/**
 * Opens a session file written by Arbor, pi or oh-my-pi. Older formats are migrated and
 * rewritten atomically (the original kept as `<file>.v1.bak`) unless read-only.
 * @throws SessionFileError when the file is not a session file (it is left unchanged)
 * @throws SessionLockedError when another live process has it open for writing
 * @example
 * const session = await openSessionFile("chat.jsonl", { create: true, cwd: process.cwd() });
 * await session.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });
 * console.log(session.buildSessionContext().messages.length); // 1
 * await session.close();
 */
export function openSessionFile(
  path: string,
  options: OpenSessionFileOptions = {},
): Promise<Session> {
  const { durability, staleLockPolicy, keepListingIndex, listingIndexDelayMs, ...rest } = options;
  const storage = new FileSessionStorage(path, {
    ...(durability ? { durability } : {}),
    ...(staleLockPolicy ? { staleLockPolicy } : {}),
    ...(keepListingIndex !== undefined ? { keepListingIndex } : {}),
    ...(listingIndexDelayMs !== undefined ? { listingIndexDelayMs } : {}),
  });
  return Session.open(storage, rest satisfies OpenStorageOptions);
}

/** Options of {@link createSession}. */
export interface CreateSessionOptions extends SessionSeams {
  /** The directory the session file goes in (see {@link defaultSessionDir}). */
  dir: string;
  /** The working directory the session belongs to. */
  cwd: string;
  durability?: Durability;
  /** The session this one continues, recorded in the header. */
  parentSession?: string;
  /** Keep the session's record in the directory's listing index current. Default true. */
  keepListingIndex?: boolean;
  /** How long after an append the listing index record is updated. Default 1000 ms. */
  listingIndexDelayMs?: number;
}

/**
 * Starts a new session file in `dir`, named `<creation time>_<session id>.jsonl`.
 * @example
 * const session = await createSession({ dir: defaultSessionDir(home, cwd), cwd });
 */
export function createSession(options: CreateSessionOptions): Promise<Session> {
  const now = options.now ?? Date.now;
  const createdAt = now();
  const sessionId = generateSessionId(createdAt);
  const path = join(options.dir, sessionFileName(sessionId, createdAt));
  const { dir: _, durability, keepListingIndex, listingIndexDelayMs, ...rest } = options;
  const storage = new FileSessionStorage(path, {
    ...(durability ? { durability } : {}),
    keepListingIndex: keepListingIndex ?? true,
    ...(listingIndexDelayMs !== undefined ? { listingIndexDelayMs } : {}),
  });
  return Session.open(storage, { ...rest, create: true, sessionId });
}

/**
 * The default directory for the sessions of a working directory:
 * `<home>/.arbor/sessions/--<cwd with separators as dashes>--`, pi's naming scheme. A name
 * that would not fit in a folder name (over {@link FOLDER_NAME_BYTES} bytes) keeps its first
 * part and ends with a hash of the whole cwd, so two long working directories never share a
 * folder; NUL, which no file name may hold, becomes a dash too.
 * @param home - the user's home directory (apps pass `os.homedir()`)
 */
export function defaultSessionDir(home: string, cwd: string): string {
  const safe = `--${cwd
    .replace(/^[/\\]/, "")
    .replace(/[/\\:]/g, "-")
    .replaceAll("\0", "-")}--`;
  return join(home, ".arbor", "sessions", fitFolderName(safe, cwd));
}

/** The longest folder name many file systems take (ext4, xfs, btrfs, APFS: 255 bytes). */
const FOLDER_NAME_BYTES = 255;

function fitFolderName(name: string, cwd: string): string {
  if (Buffer.byteLength(name, "utf8") <= FOLDER_NAME_BYTES) return name;
  const hash = createHash("sha256").update(cwd, "utf8").digest("hex").slice(0, 16);
  let head = "";
  for (const char of name) {
    if (Buffer.byteLength(head + char, "utf8") > 200) break;
    head += char;
  }
  return `${head}-${hash}--`;
}
