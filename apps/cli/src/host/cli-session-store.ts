import { isAbsolute } from "node:path";
import {
  type CreateStoredSessionOptions,
  createSession,
  FileSessionStore,
  type ImportedSession,
  type OpenStoredSessionOptions,
  openSessionFile,
  type Session,
  type SessionListQuery,
  type SessionPage,
  type SessionStore,
} from "@arbor/session-store";

/** Options of {@link CliSessionStore}. */
export interface CliSessionStoreOptions {
  /** The folder holding one folder of sessions per working directory (`~/.arbor/sessions`). */
  sessionsRoot: string;
  /** The folder a new session of a working directory goes in. */
  sessionDirFor: (cwd: string) => string;
}

/**
 * The session store the CLI hands to the agent host: Arbor's session files, plus any
 * session file the user names by path (pi's files live outside Arbor's folder). A session
 * is opened by its file path (what `--session` and `--continue` resolve to) or by id; a
 * session opened by path forks beside its file, as the session itself places forks.
 */
export class CliSessionStore implements SessionStore {
  private readonly files: FileSessionStore;
  /** The file of each session opened here, so a fork finds it by id. */
  private readonly locations = new Map<string, string>();

  constructor(private readonly options: CliSessionStoreOptions) {
    this.files = new FileSessionStore({ root: options.sessionsRoot });
  }

  /** Starts a new session in the folder of its working directory. */
  async create(options: CreateStoredSessionOptions): Promise<Session> {
    const { tenant: _tenant, ...rest } = options;
    return this.remember(
      await createSession({ ...rest, dir: this.options.sessionDirFor(rest.cwd) }),
    );
  }

  /** Opens a session by its file path (absolute), else by id among Arbor's files. */
  async open(idOrPath: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    if (!isAbsolute(idOrPath)) return this.remember(await this.files.open(idOrPath, options));
    const { tenant: _tenant, ...rest } = options;
    return this.remember(await openSessionFile(idOrPath, rest));
  }

  /** Copies the path to `leafId` into a new session beside the source's file. */
  async fork(id: string, leafId: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const source = await this.open(this.locations.get(id) ?? id, { ...options, readOnly: true });
    try {
      return this.remember(await source.fork(leafId));
    } finally {
      await source.close();
    }
  }

  /** {@inheritDoc SessionStore.has} By id among Arbor's files, or a session file's path. */
  async has(idOrPath: string, options?: { tenant?: string }): Promise<boolean> {
    if (!isAbsolute(idOrPath)) return this.files.has(idOrPath, options);
    return this.open(idOrPath, { readOnly: true }).then(
      async (session) => {
        await session.close();
        return true;
      },
      () => false,
    );
  }

  /** {@inheritDoc SessionStore.list} */
  list(query?: SessionListQuery): Promise<SessionPage> {
    return this.files.list(query);
  }

  /** {@inheritDoc SessionStore.delete} */
  delete(id: string, options?: { tenant?: string }): Promise<void> {
    return this.files.delete(id, options);
  }

  /** {@inheritDoc SessionStore.importLog} */
  importLog(text: string, options?: { tenant?: string }): Promise<ImportedSession> {
    return this.files.importLog(text, options);
  }

  /** {@inheritDoc SessionStore.close} */
  close(): Promise<void> {
    return this.files.close();
  }

  private remember(session: Session): Session {
    this.locations.set(session.id, session.location);
    return session;
  }
}
