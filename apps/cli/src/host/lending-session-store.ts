import type {
  CreateStoredSessionOptions,
  ImportedSession,
  OpenStoredSessionOptions,
  Session,
  SessionListQuery,
  SessionPage,
  SessionStore,
} from "@arbor/session-store";

/**
 * A store that can lend a session it already has open: while lent, opening that session
 * (by id or by its location) hands out the open session itself, whose `close()` does
 * nothing; everything else goes to the store it wraps.
 *
 * The interactive app holds its session open (and locked) for as long as it shows it. An
 * orchestration opens its root agent on the session by id; without lending, that second
 * writer would be refused by the session's lock. Lent, both work on one handle, so the app
 * sees every entry the run stores, and the lock is taken once.
 */
export class LendingSessionStore implements SessionStore {
  private lent: Session | undefined;

  constructor(private readonly inner: SessionStore) {}

  /**
   * Lends `session` until the returned function is called: {@link open} of its id or
   * location returns it (with a `close()` that leaves it open).
   * @throws Error when another session is lent already
   */
  lend(session: Session): () => void {
    if (this.lent !== undefined) {
      throw new Error(`${this.lent.id} is lent already; return it before lending another`);
    }
    this.lent = session;
    return () => {
      if (this.lent === session) this.lent = undefined;
    };
  }

  /** {@inheritDoc SessionStore.create} */
  create(options: CreateStoredSessionOptions): Promise<Session> {
    return this.inner.create(options);
  }

  /** Opens a session; the lent one (by id or location, not read-only) is borrowed. */
  async open(id: string, options: OpenStoredSessionOptions = {}): Promise<Session> {
    const lent = this.lent;
    if (lent !== undefined && options.readOnly !== true && (id === lent.id || id === lent.location))
      return borrowed(lent);
    return this.inner.open(id, options);
  }

  /** {@inheritDoc SessionStore.has} */
  has(id: string, options?: { tenant?: string }): Promise<boolean> {
    const lent = this.lent;
    if (lent !== undefined && (id === lent.id || id === lent.location))
      return Promise.resolve(true);
    return this.inner.has(id, options);
  }

  /** {@inheritDoc SessionStore.list} */
  list(query?: SessionListQuery): Promise<SessionPage> {
    return this.inner.list(query);
  }

  /** {@inheritDoc SessionStore.delete} */
  delete(id: string, options?: { tenant?: string }): Promise<void> {
    return this.inner.delete(id, options);
  }

  /** {@inheritDoc SessionStore.fork} */
  fork(id: string, leafId: string, options?: OpenStoredSessionOptions): Promise<Session> {
    return this.inner.fork(id, leafId, options);
  }

  /** {@inheritDoc SessionStore.importLog} */
  importLog(text: string, options?: { tenant?: string }): Promise<ImportedSession> {
    return this.inner.importLog(text, options);
  }

  /** {@inheritDoc SessionStore.close} */
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The session itself for every read and write, with a `close()` that leaves it open. */
function borrowed(session: Session): Session {
  return new Proxy(session, {
    get(target, property) {
      if (property === "close") return async () => undefined;
      // Read on the session itself: its private fields belong to it, not to the proxy.
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
