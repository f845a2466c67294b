import type { SessionHeader } from "./format/entries.js";
import { CURRENT_SESSION_VERSION } from "./format/version.js";
import { generateSessionId, type IdSet } from "./ids.js";

/** The seams and settings every way of opening a session shares. */
export interface SessionSeams {
  /** The clock, in epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Entry id generation. Default: eight random hex digits, unique in the session. */
  generateId?: (taken: IdSet) => string;
  /** The longest automatic title. Default `DEFAULT_TITLE_LENGTH` (60). */
  titleLength?: number;
}

/** How `Session.open` treats the storage. */
export interface OpenStorageOptions extends SessionSeams {
  /** Never write, never lock; other writers are not blocked. */
  readOnly?: boolean;
  /** Create the session when the storage holds nothing. Default false. */
  create?: boolean;
  /** The working directory recorded in a newly created header. */
  cwd?: string;
  /** The id of a newly created session. */
  sessionId?: string;
  /** The session this one was forked from, recorded in a newly created header. */
  parentSession?: string;
}

/** The file name of a session: creation time (sortable) and id, as pi names them. */
export function sessionFileName(sessionId: string, createdAt: number): string {
  return `${new Date(createdAt).toISOString().replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** The header of a session created with these options. */
export function newSessionHeader(options: OpenStorageOptions): SessionHeader {
  const now = options.now ?? Date.now;
  return {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: options.sessionId ?? generateSessionId(now()),
    timestamp: new Date(now()).toISOString(),
    cwd: options.cwd ?? "",
    ...(options.parentSession ? { parentSession: options.parentSession } : {}),
  };
}
