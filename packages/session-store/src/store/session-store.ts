import { z } from "zod";
import type { LogProblem } from "../format/session-log.js";
import type { Session } from "../session.js";
import type { SessionSeams } from "../session-options.js";
import { InvalidStoreQueryError } from "./store-errors.js";

/** A tenant name: any non-empty text up to 200 characters. */
export const tenantSchema = z.string().min(1).max(200);

/** What {@link SessionStore.list} is asked for. */
export const sessionListQuerySchema = z.strictObject({
  /** Only this tenant's sessions; without it, the sessions created without a tenant. */
  tenant: tenantSchema.optional(),
  /** Only sessions of this working directory. */
  cwd: z.string().max(4096).optional(),
  /** Case-insensitive text in the title, name or first user message. */
  search: z.string().max(500).optional(),
  /** Page size, 1 to 1000. Default 50. */
  limit: z.number().int().min(1).max(1000).default(50),
  /** `nextCursor` of the previous page. */
  cursor: z.string().max(1000).optional(),
});

/** What {@link SessionStore.list} is asked for (input form: `limit` may be left out). */
export type SessionListQuery = z.input<typeof sessionListQuerySchema>;
/** A list query with its defaults applied. */
export type ParsedSessionListQuery = z.output<typeof sessionListQuerySchema>;

/**
 * Checks a list query.
 * @throws InvalidStoreQueryError naming the first bad field and why
 */
export function parseListQuery(query: SessionListQuery): ParsedSessionListQuery {
  const parsed = sessionListQuerySchema.safeParse(query);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field =
    issue?.path.join(".") || (issue?.code === "unrecognized_keys" ? issue.keys.join(",") : "query");
  throw new InvalidStoreQueryError(field, issue?.message ?? "not a list query");
}

/** One session as a store lists it. */
export interface StoredSessionInfo {
  id: string;
  /** Where the session is stored (`Session.location`). */
  location: string;
  tenant: string | undefined;
  /** The name set on the session, else a title made from the first user message. */
  title: string | undefined;
  /** The name set on the session (`session_info`), if any. */
  name: string | undefined;
  cwd: string;
  created: Date;
  modified: Date;
  /** The number of `message` entries, in every branch. */
  messageCount: number;
  firstUserMessage: string | undefined;
  parentSession: string | undefined;
}

/** A page of a listing, newest first. */
export interface SessionPage {
  sessions: StoredSessionInfo[];
  /** Pass as `cursor` for the next page; undefined on the last page. */
  nextCursor: string | undefined;
}

/** Options of {@link SessionStore.create}. */
export interface CreateStoredSessionOptions extends SessionSeams {
  /** The working directory the session belongs to. */
  cwd: string;
  tenant?: string;
  /** The session this one continues, recorded in the header. */
  parentSession?: string;
}

/** Options of {@link SessionStore.open}. */
export interface OpenStoredSessionOptions extends SessionSeams {
  /** Never write or lock; writers are not blocked. Default false. */
  readOnly?: boolean;
  /** The tenant the session must belong to. */
  tenant?: string;
}

/** What {@link SessionStore.importLog} stored. */
export interface ImportedSession {
  id: string;
  /** Lines of the input that could not be kept (reported, not stored). */
  problems: readonly LogProblem[];
}

/**
 * Every session of one place (a directory tree, a database, memory): create, open, list,
 * delete, fork. Each opened session is the same {@link Session} class whatever the backend.
 */
export interface SessionStore {
  /**
   * Starts a new session, open for writing.
   * @example
   * const session = await store.create({ cwd: process.cwd() });
   */
  create(options: CreateStoredSessionOptions): Promise<Session>;
  /**
   * Opens a session by id.
   * @throws SessionNotFoundError when the store (or the tenant) has no such session
   * @throws SessionLockedError when another writer holds it (never for `readOnly`)
   */
  open(id: string, options?: OpenStoredSessionOptions): Promise<Session>;
  /**
   * Whether the store (the tenant's part of it, when one is given) has a session with this id,
   * found without reading the session: what a server checks before it starts work on one.
   * An id that cannot name a session (empty, a path, a NUL) is simply not there.
   * @throws InvalidStoreQueryError for a bad tenant name
   */
  has(id: string, options?: { tenant?: string }): Promise<boolean>;
  /**
   * A page of sessions, newest change first; pages follow one another through `cursor`.
   * @throws InvalidStoreQueryError for a bad field
   */
  list(query?: SessionListQuery): Promise<SessionPage>;
  /**
   * Deletes a session and every entry of it.
   * @throws SessionNotFoundError when there is none
   * @throws SessionLockedError when a writer holds it
   */
  delete(id: string, options?: { tenant?: string }): Promise<void>;
  /**
   * Copies the path from the root to `leafId` of a session into a new session of the same
   * tenant, with `parentSession` set; returns it open for writing.
   * @throws EntryNotFoundError when the entry does not exist
   */
  fork(id: string, leafId: string, options?: OpenStoredSessionOptions): Promise<Session>;
  /**
   * Stores a session log given as text (a pi or Arbor `.jsonl` file), keeping its id.
   * @throws SessionFileError when the text is not a session log
   */
  importLog(text: string, options?: { tenant?: string }): Promise<ImportedSession>;
  /** Releases what the store holds (connections, timers). Sessions should be closed first. */
  close(): Promise<void>;
}
