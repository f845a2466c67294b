import { constants } from "node:fs";
import { lstat, open, readdir, realpath, rm, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { activityTimeFromLineEnd, activityTimeOf, laterActivity } from "./activity-time.js";
import { SessionFileError } from "./errors/index.js";
import { type AgentMessage, sessionHeaderSchema } from "./format/entries.js";
import { isJsonObject, safeParseJson } from "./format/json-line.js";
import {
  emptyIndex,
  type IndexRecord,
  type ListingState,
  mergeIndex,
  readIndex,
  SESSION_INDEX_FILE,
  TAIL_BYTES,
  updateIndexRecord,
} from "./listing-index.js";
import { isSpareCopyId } from "./spare-copy.js";
import { acquireFileLock, type StaleLockPolicy } from "./storage/file-lock.js";
import { fileKind, toStoreError } from "./storage/io-errors.js";
import { DEFAULT_TITLE_LENGTH, messageText, titleFromText } from "./title.js";

export { SESSION_INDEX_FILE };

const NEWLINE = 0x0a;

/** What {@link listSessions} tells about one session file. */
export interface SessionInfo {
  id: string;
  path: string;
  /** The name set on the session, else a title made from the first user message. */
  title: string | undefined;
  /** The name set on the session (`session_info`), if any. */
  name: string | undefined;
  cwd: string;
  created: Date;
  /**
   * When the session was last active, by pi's rule: the time of its latest user or
   * assistant message (the message's `timestamp`, else its entry's); a session without one
   * falls back to its creation time, then to the file's mtime. Navigation, labels and
   * titles do not change it, so they do not reorder the list.
   */
  modified: Date;
  /** The number of `message` entries, in every branch. */
  messageCount: number;
  firstUserMessage: string | undefined;
  parentSession: string | undefined;
}

/** Options of {@link listSessions}. */
export interface ListSessionsOptions {
  titleLength?: number;
  /** Called for each file that is skipped because it is not a session file. */
  onSkip?: (path: string, reason: string) => void;
}

/**
 * Lists the sessions in a directory, newest first, without parsing whole files: an index
 * (`.arbor-index.json`) keeps what each file holds, checked against its size and mtime.
 * A file that only grew is read from where the index stopped; a changed or new file is
 * scanned line by line, parsing only the lines the listing needs. Files written by pi are
 * listed too.
 */
export async function listSessions(
  dir: string,
  options: ListSessionsOptions = {},
): Promise<SessionInfo[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith(".jsonl"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const index = await readIndex(dir);
  const next = emptyIndex();
  const scratch = new ScratchBuffer();
  let changed = false;
  const sessions: SessionInfo[] = [];
  // The stats go out together; the scans, which need the shared buffer, one at a time.
  const allStats = await Promise.all(
    names.map((name) => stat(join(dir, name)).catch(() => undefined)),
  );
  for (const [i, name] of names.entries()) {
    const path = join(dir, name);
    const stats = allStats[i];
    if (!stats) continue;
    // A folder, FIFO or device named `*.jsonl` is no session; opening a FIFO would block.
    if (!stats.isFile()) {
      options.onSkip?.(path, `it is not a regular file`);
      continue;
    }
    const known = index.files.get(name);
    let record = known;
    if (!known || known.size !== stats.size || known.mtimeMs !== stats.mtimeMs) {
      changed = true;
      const scanned = await scanFile(path, stats.size, known, scratch).catch(
        (error: NodeJS.ErrnoException) => `it cannot be read (${error.code ?? error.message})`,
      );
      if (typeof scanned === "string") {
        options.onSkip?.(path, scanned);
        continue;
      }
      record = {
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        tail: scanned.tail,
        state: scanned.state,
      };
    }
    if (!record) continue;
    next.files.set(name, record);
    // The spare copy of a session being rewritten is no session of its own.
    if (isSpareCopyId(record.state.id)) continue;
    sessions.push(
      toInfo(path, record.state, stats.mtime, options.titleLength ?? DEFAULT_TITLE_LENGTH),
    );
  }
  if (changed || index.files.size !== next.files.size) {
    await mergeIndex(dir, index, next, new Set(names));
  }
  return sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

/** Options of {@link deleteSession}. */
export interface DeleteSessionOptions {
  /** The store's directory: the file must be in it. Default: the file's own directory. */
  dir?: string;
  /** What to do with a lock left by a process that is gone. Default `auto`. */
  staleLockPolicy?: StaleLockPolicy;
}

/**
 * Deletes a session file, its lock and its listing index record. Only a session file of
 * the store is deleted: a regular file (not a symbolic link, a directory or a FIFO) named
 * `*.jsonl`, in the store's directory, whose first line is a session header. Anything
 * else is refused and left as it is. A file that is already gone is not an error.
 * @throws SessionFileError naming the file and why it is not a session file of the store
 * @throws SessionLockedError when a live process has the session open for writing
 */
export async function deleteSession(
  path: string,
  options: DeleteSessionOptions = {},
): Promise<void> {
  if (!(await requireSessionFile(path, options.dir))) return;
  const release = await acquireFileLock(path, options.staleLockPolicy);
  try {
    // Checked again under the lock: the file may have been swapped meanwhile.
    if (await requireSessionFile(path, options.dir)) await rm(path, { force: true });
  } finally {
    await release();
  }
  await updateIndexRecord(path, undefined);
}

/** @returns false when nothing is at the path; throws when it is not a session file of the store */
async function requireSessionFile(path: string, dir: string | undefined): Promise<boolean> {
  if (!path.endsWith(".jsonl")) {
    throw new SessionFileError(path, "wrong_extension", "its name does not end in .jsonl");
  }
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw toStoreError(error, path, "delete");
  }
  if (!stats.isFile())
    throw new SessionFileError(path, "not_regular_file", `it is ${fileKind(stats)}`);
  const storeDir = await realpath(resolve(dir ?? dirname(path)));
  const fileDir = await realpath(dirname(resolve(path)));
  if (fileDir !== storeDir) {
    throw new SessionFileError(
      path,
      "outside_directory",
      `it is not in the store's directory ${storeDir}`,
    );
  }
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let first: string;
  try {
    const buffer = Buffer.alloc(HEADER_PROBE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, bytesRead).indexOf(NEWLINE);
    first = buffer.toString("utf8", 0, end === -1 ? bytesRead : end);
  } finally {
    await handle.close();
  }
  const header = safeParseJson(first);
  if (!header.ok || !sessionHeaderSchema.safeParse(header.value).success) {
    throw new SessionFileError(path, "invalid_header", "its first line is not a session header");
  }
  return true;
}

/** How much of a file is read to find its header line. */
const HEADER_PROBE_BYTES = 64 * 1024;

function toInfo(path: string, state: ListingState, mtime: Date, titleLength: number): SessionInfo {
  return {
    id: state.id,
    path,
    title:
      state.name ??
      (state.firstUserMessage ? titleFromText(state.firstUserMessage, titleLength) : undefined),
    name: state.name,
    cwd: state.cwd,
    created: new Date(state.created),
    modified: modifiedOf(state, mtime),
    messageCount: state.messageCount,
    firstUserMessage: state.firstUserMessage,
    parentSession: state.parentSession,
  };
}

/** pi's rule: the last activity, else the header's time, else the file's mtime. */
function modifiedOf(state: ListingState, mtime: Date): Date {
  if (state.lastActivity !== null && state.lastActivity > 0) return new Date(state.lastActivity);
  const created = new Date(state.created).getTime();
  return Number.isNaN(created) ? mtime : new Date(created);
}

/** Reads what a listing needs from a file, from where `known` stopped if the file only grew. */
async function scanFile(
  path: string,
  size: number,
  known: IndexRecord | undefined,
  scratch: ScratchBuffer,
): Promise<{ state: ListingState; tail: string } | string> {
  const handle = await open(path, "r");
  try {
    let from = 0;
    let state: ListingState | undefined;
    if (known && size > known.size && known.size >= TAIL_BYTES) {
      const tail = Buffer.alloc(TAIL_BYTES);
      await handle.read(tail, 0, TAIL_BYTES, known.size - TAIL_BYTES);
      if (tail.toString("base64") === known.tail && tail[TAIL_BYTES - 1] === NEWLINE) {
        from = known.size;
        state = { ...known.state };
      }
    }
    const bytes = scratch.get(size - from);
    const { bytesRead } = await handle.read(bytes, 0, size - from, from);
    const result = scanLines(bytes.subarray(0, bytesRead), state);
    if (typeof result === "string") return result;
    const tailStart = Math.max(0, size - TAIL_BYTES);
    const tail = Buffer.alloc(size - tailStart);
    await handle.read(tail, 0, tail.length, tailStart);
    return { state: result, tail: tail.toString("base64") };
  } finally {
    await handle.close();
  }
}

/** One buffer reused for every file a listing scans: listing a gigabyte should not allocate one. */
class ScratchBuffer {
  private buffer = Buffer.allocUnsafe(0);
  get(size: number): Buffer {
    if (this.buffer.length < size)
      this.buffer = Buffer.allocUnsafe(Math.max(size, this.buffer.length * 2));
    return this.buffer;
  }
}

const messagePrefix = Buffer.from('{"type":"message",');
const roleOf =
  /^\{"type":"message","id":"[^"]*","parentId":(?:null|"[^"]*"),"timestamp":"[^"]*","message":\{"role":"([^"\\]*)"/;

/** Folds lines into the listing state; only headers, session names and user messages are parsed. */
function scanLines(bytes: Buffer, state: ListingState | undefined): ListingState | string {
  let start = 0;
  let current = state;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    if (end > start) {
      if (!current) {
        const header = safeParseJson(bytes.toString("utf8", start, end));
        if (
          !header.ok ||
          !isJsonObject(header.value) ||
          header.value.type !== "session" ||
          typeof header.value.id !== "string"
        ) {
          return "the first line is not a session header";
        }
        const h = header.value;
        current = {
          id: h.id as string,
          cwd: typeof h.cwd === "string" ? h.cwd : "",
          created: typeof h.timestamp === "string" ? h.timestamp : new Date(0).toISOString(),
          messageCount: 0,
          lastActivity: null,
          ...(typeof h.parentSession === "string" ? { parentSession: h.parentSession } : {}),
        };
      } else if (
        bytes.compare(
          messagePrefix,
          0,
          messagePrefix.length,
          start,
          start + messagePrefix.length,
        ) === 0
      ) {
        current.messageCount++;
        const role = roleOf.exec(bytes.toString("latin1", start, start + 200))?.[1];
        const needsText = current.firstUserMessage === undefined && role === "user";
        let parsed: Record<string, unknown> | undefined;
        const parse = () => {
          if (parsed) return parsed;
          const json = safeParseJson(bytes.toString("utf8", start, end));
          parsed = json.ok && isJsonObject(json.value) ? json.value : {};
          return parsed;
        };
        if (needsText) {
          const text = messageText(parse().message as AgentMessage).trim();
          if (text) current.firstUserMessage = text.slice(0, 2000);
        }
        if (role === undefined || role === "user" || role === "assistant") {
          const fromEnd =
            parsed === undefined && role !== undefined
              ? activityTimeFromLineEnd(bytes.toString("latin1", Math.max(start, end - 120), end))
              : undefined;
          const time = fromEnd ?? activityTimeOf(parse());
          current.lastActivity = laterActivity(current.lastActivity ?? undefined, time) ?? null;
        }
      } else {
        foldOtherLine(bytes.toString("utf8", start, end), current);
      }
    }
    start = end + 1;
  }
  return current ?? "the file is empty";
}

function foldOtherLine(text: string, state: ListingState): void {
  // Only lines that may be a session name or a message written with other key orders are parsed.
  if (!text.includes('"session_info"') && !text.includes('"message"')) return;
  const parsed = safeParseJson(text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return;
  const entry = parsed.value;
  if (entry.type === "session_info") {
    const name = typeof entry.name === "string" ? entry.name.trim() : "";
    if (name) state.name = name;
    else delete state.name;
  } else if (entry.type === "message" && isJsonObject(entry.message)) {
    state.messageCount++;
    state.lastActivity =
      laterActivity(state.lastActivity ?? undefined, activityTimeOf(entry)) ?? null;
    if (state.firstUserMessage === undefined && entry.message.role === "user") {
      const text = messageText(entry.message as AgentMessage).trim();
      if (text) state.firstUserMessage = text.slice(0, 2000);
    }
  }
}
