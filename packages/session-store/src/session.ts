import {
  DuplicateEntryIdError,
  EntryNotFoundError,
  InvalidEntryError,
  SessionFileChangedError,
  SessionReadOnlyError,
  SessionStoreError,
} from "./errors/index.js";
import type { AgentMessage, ContentBlock, InjectedRule, SessionEntry } from "./format/entries.js";
import { newEntryIssue } from "./format/new-entry.js";
import { parseSessionLog, recordOf } from "./format/session-log.js";
import { CURRENT_SESSION_VERSION } from "./format/version.js";
import { generateEntryId, generateSessionId, type IdSet } from "./ids.js";
import { listingStateOf } from "./listing-index-keeper.js";
import { newSessionHeader, type OpenStorageOptions, type SessionSeams } from "./session-options.js";
import { SessionReader } from "./session-reader.js";
import type { SessionStorage } from "./storage/session-storage.js";
import { askForTitle, DEFAULT_TITLE_LENGTH, type TitleGenerator } from "./title.js";
import { SessionTree, type TreeCheckpoint } from "./tree/session-tree.js";

/**
 * A session: the tree of entries in memory, kept in step with its storage. Read getters
 * keep pi's names; appenders are `append*`, advance the leaf, and resolve with the new id
 * once the entry is stored.
 */
export class Session extends SessionReader {
  private lastWrite: Promise<unknown> = Promise.resolve();
  private closed = false;
  private failure: unknown;
  private readonly now: () => number;
  /** The last timestamp written, kept: appends come in bursts within one millisecond. */
  private lastTime = { ms: Number.NaN, iso: "" };
  private readonly newId: (taken: IdSet) => string;
  /** Writes handed to the storage and not settled yet. */
  private inFlight = 0;
  /** Set when the stored file was replaced or cut by another program: never written again. */
  private detached: SessionFileChangedError | undefined;
  /** The ids the id generator must avoid: entries, and parents that earlier lines wait for. */
  private readonly taken: IdSet;

  private constructor(
    private readonly storage: SessionStorage,
    tree: SessionTree,
    readonly readOnly: boolean,
    seams: SessionSeams,
  ) {
    super(tree, seams.titleLength ?? DEFAULT_TITLE_LENGTH);
    this.now = seams.now ?? Date.now;
    this.newId = seams.generateId ?? generateEntryId;
    this.taken = { has: (id) => tree.isTaken(id) };
  }

  /** Where the session is stored (a file path for the file backend). */
  get location(): string {
    return this.storage.location;
  }

  /**
   * Opens the session held by a storage backend. Older formats are migrated (rewritten
   * atomically, the original kept as a backup) unless read-only.
   * @throws SessionFileError when the stored bytes are not a session
   */
  static async open(storage: SessionStorage, options: OpenStorageOptions = {}): Promise<Session> {
    const readOnly = options.readOnly ?? false;
    if (!readOnly) await storage.lock();
    try {
      const stored = await storage.read();
      if (!stored) {
        if (!options.create || readOnly) {
          throw new SessionStoreError(
            "not_found",
            `no session at ${storage.location}; pass { create: true } to start one there`,
          );
        }
        const header = newSessionHeader(options);
        await storage.replace([JSON.stringify(header)]);
        const session = new Session(storage, new SessionTree(header), false, options);
        session.hold();
        return session;
      }
      const idFor = options.generateId ?? generateEntryId;
      const log = parseSessionLog(stored.content, storage.location, (taken) => idFor(taken));
      const tree = new SessionTree(log.header, [...log.problems, ...stored.problems]);
      for (const record of log.records) tree.add(record);
      const session = new Session(storage, tree, readOnly, options);
      session.checkStructure();
      if (readOnly) return session;
      if (log.sourceVersion < CURRENT_SESSION_VERSION) {
        await storage.replace(session.serializeAll(), `.v${log.sourceVersion}.bak`);
      } else if (log.tornTail) {
        // The storage owns the framing: a writer never appends after a torn line.
        throw new SessionStoreError(
          "torn_tail",
          `${storage.location} handed over a torn last line to a writer; its storage must set it aside when read after lock()`,
        );
      } else if (log.needsNewline) {
        await storage.append([""]);
      }
      session.hold();
      return session;
    } catch (error) {
      if (!readOnly) await storage.close();
      throw error;
    }
  }

  // Appenders.

  /** Appends a message (user, assistant, toolResult, …) as a child of the leaf. */
  appendMessage(message: AgentMessage): Promise<string> {
    return this.append({ type: "message", message });
  }

  /** Records a change of thinking level (`off`, `low`, `high`, …) for the turns after it. */
  appendThinkingLevelChange(thinkingLevel: string): Promise<string> {
    return this.append({ type: "thinking_level_change", thinkingLevel });
  }

  /** Records a change of model for the turns after it. */
  appendModelChange(provider: string, modelId: string): Promise<string> {
    return this.append({ type: "model_change", provider, modelId });
  }

  /**
   * Appends a compaction: in the context, `summary` stands for everything on the path
   * before `firstKeptEntryId`.
   */
  appendCompaction(
    summary: string,
    firstKeptEntryId: string,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
  ): Promise<string> {
    return this.append({
      type: "compaction",
      summary,
      firstKeptEntryId,
      tokensBefore,
      details,
      fromHook,
    });
  }

  /** Appends extension state: stored in the tree, never sent to the model. */
  appendCustomEntry(customType: string, data?: unknown): Promise<string> {
    return this.append({ type: "custom", customType, data });
  }

  /** Appends an extension message that takes part in the model's context. */
  appendCustomMessageEntry(
    customType: string,
    content: string | ContentBlock[],
    display: boolean,
    details?: unknown,
  ): Promise<string> {
    return this.append({ type: "custom_message", customType, content, display, details });
  }

  /**
   * Sets the label of an entry, or clears it with `undefined` or `""`.
   * @throws EntryNotFoundError when the target does not exist
   */
  appendLabelChange(targetId: string, label?: string): Promise<string> {
    if (!this.tree.has(targetId)) throw new EntryNotFoundError(targetId);
    return this.append({ type: "label", targetId, label });
  }

  /**
   * Sets the session's name (its title); trimmed, and an empty name clears it. Resolves
   * once the listing index shows the new name too.
   */
  async appendSessionInfo(name: string): Promise<string> {
    const id = await this.append({ type: "session_info", name: name.trim() });
    await this.storage.publish?.();
    return id;
  }

  /**
   * Records the stream rules one interrupt injected (the records `TtsrManager.markInjected`
   * returns), so their repeat policy and budgets survive a reload.
   */
  appendTtsrInjection(injectedRules: InjectedRule[]): Promise<string> {
    return this.append({ type: "ttsr_injection", injectedRules });
  }

  /**
   * Appends entries made elsewhere (an imported log that grew), keeping their ids, parent
   * ids and timestamps. Each is checked against its schema (unknown types and fields are
   * kept); each parent (and a label's target) must be in the session or earlier in the
   * batch, so a batch can neither dangle nor form a cycle. The batch is one storage append:
   * stored whole or not at all. The leaf moves to the last entry.
   * @returns the ids appended, in order
   * @throws InvalidEntryError when an entry fails its schema or JSON (leaf pointers included)
   * @throws DuplicateEntryIdError when an id is taken, or repeats in the batch
   * @throws EntryNotFoundError when a parent or a label's target is nowhere
   */
  async appendEntries(entries: readonly SessionEntry[]): Promise<string[]> {
    this.assertWritable();
    const batch = new Set<string>();
    const known = (id: string) => batch.has(id) || this.tree.has(id);
    const lines: string[] = [];
    for (const entry of entries) {
      const type = typeof entry?.type === "string" ? entry.type : "unknown";
      const issue =
        type === "leaf"
          ? { field: "type", reason: "is a leaf pointer, which is navigation: use branch()" }
          : newEntryIssue(entry);
      if (issue) throw new InvalidEntryError(type, issue);
      if (this.tree.isTaken(entry.id) || batch.has(entry.id))
        throw new DuplicateEntryIdError(entry.id);
      if (entry.parentId !== null && !known(entry.parentId))
        throw new EntryNotFoundError(entry.parentId, entry.id);
      const target = (entry as { targetId?: unknown }).targetId;
      if (type === "label" && typeof target === "string" && !known(target))
        throw new EntryNotFoundError(target, entry.id);
      batch.add(entry.id);
      lines.push(JSON.stringify(entry));
    }
    if (lines.length === 0) return [];
    const checkpoint = this.tree.checkpoint();
    // Copies from the stored text: the caller's objects may change after the call.
    for (const line of lines) this.tree.add(recordOf(JSON.parse(line) as SessionEntry, 0));
    return this.write(lines, [...batch], checkpoint);
  }

  /**
   * Moves the leaf to an earlier entry; the next append starts a branch there. The move is
   * stored, so the session reopens on this leaf.
   * @throws EntryNotFoundError when the entry does not exist
   */
  async branch(entryId: string): Promise<void> {
    this.assertWritable();
    const checkpoint = this.tree.checkpoint();
    this.tree.setLeaf(entryId);
    await this.storePointer(entryId, checkpoint);
  }

  /** Moves the leaf before the first entry: the next append starts a new root. */
  async resetLeaf(): Promise<void> {
    this.assertWritable();
    const checkpoint = this.tree.checkpoint();
    this.tree.setLeaf(null);
    await this.storePointer(null, checkpoint);
  }

  /**
   * Leaves the current branch for `targetId` (null: a new root), recording a summary of
   * what was left. The entry's `fromId` is the leaf that was abandoned ("root" if none).
   * @returns the id of the branch summary entry, the new leaf
   */
  async branchWithSummary(
    targetId: string | null,
    summary: string,
    details?: unknown,
  ): Promise<string> {
    this.assertWritable();
    const abandoned = this.tree.getLeafId();
    const checkpoint = this.tree.checkpoint();
    this.tree.setLeaf(targetId);
    return this.append(
      { type: "branch_summary", fromId: abandoned ?? "root", summary, details },
      checkpoint,
    );
  }

  // Titles (getTitle is read-only, with the read API).

  /** Sets the title, stored as `session_info` so pi shows the same name. */
  setTitle(title: string): Promise<string> {
    const clean = title.replace(/\s+/gu, " ").trim();
    if (!clean)
      throw new SessionStoreError(
        "invalid_title",
        "a title needs some text; use clearTitle() to remove it",
      );
    return this.appendSessionInfo(clean);
  }

  /** Clears a set title; the automatic one shows again. */
  clearTitle(): Promise<string> {
    return this.appendSessionInfo("");
  }

  /**
   * Asks a generator for a new title and stores it. A failing or empty answer leaves the
   * title as it was and is reported in the returned value, never thrown.
   */
  async regenerateTitle(
    generator: TitleGenerator,
    signal?: AbortSignal,
  ): Promise<{ title: string | undefined; error?: unknown }> {
    const first = this.firstUserMessage();
    if (first === undefined)
      return { title: this.getTitle(), error: new Error("no user message to title") };
    const messages = this.tree.buildSessionContext().messages;
    const input = { firstUserMessage: first, messages, ...(signal ? { signal } : {}) };
    const asked = await askForTitle(generator, input, this.titleLength);
    if (!asked.ok) return { title: this.getTitle(), error: asked.error };
    try {
      await this.setTitle(asked.title);
      return { title: asked.title };
    } catch (error) {
      return { title: this.getTitle(), error };
    }
  }

  /**
   * Copies the path from the root to `leafId` into a new session beside this one (for the
   * file backend: the same directory), with `parentSession` set and the path's labels.
   * @throws EntryNotFoundError when the entry does not exist
   */
  async fork(leafId: string, options: { storage?: SessionStorage } = {}): Promise<Session> {
    const path = this.tree.getBranch(leafId).filter((entry) => entry.type !== "label");
    const now = this.now;
    const sessionId = generateSessionId(now());
    const storage = options.storage ?? this.storage.sibling?.(sessionId, now());
    if (!storage) {
      throw new SessionStoreError(
        "fork_needs_storage",
        `${this.location} has no place beside it for a fork; pass { storage } to say where it goes`,
      );
    }
    const forked = await Session.open(storage, {
      create: true,
      sessionId,
      cwd: this.getHeader().cwd ?? "",
      parentSession: this.location,
      now,
      generateId: this.newId,
    });
    const lines: string[] = [];
    for (const entry of path) {
      forked.tree.add(recordOf(entry, 0));
      lines.push(JSON.stringify(entry));
    }
    for (const entry of path) {
      const label = this.tree.getLabel(entry.id);
      if (!label) continue;
      const labelEntry = forked.build({ type: "label", targetId: entry.id, label });
      forked.tree.add(recordOf(labelEntry, 0));
      lines.push(JSON.stringify(labelEntry));
    }
    try {
      await storage.append(lines);
    } catch (error) {
      // The fork holds only its header: remove it rather than leave a half copy.
      await forked.delete().catch(() => undefined);
      throw error;
    }
    return forked;
  }

  /** Resolves when every append made so far is stored. */
  async flush(): Promise<void> {
    await this.lastWrite.catch(() => undefined);
  }

  /**
   * Waits for pending appends, then releases the lock. Idempotent. A storage that lost its
   * data while open (a deleted file) recreates it from this session first.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    await this.storage.close();
  }

  /** Closes the session and deletes its stored data. */
  async delete(): Promise<void> {
    await this.close();
    await this.storage.delete();
  }

  private build<T extends { type: string }>(
    fields: T,
  ): T & { id: string; parentId: string | null; timestamp: string } {
    // Assigning the fields over the head keeps `type` first (pi's key order) without
    // copying them into an intermediate object.
    const head = {
      type: fields.type,
      id: this.newId(this.taken),
      parentId: this.tree.getLeafId(),
      timestamp: this.isoTime(this.now()),
    };
    return Object.assign(head, fields);
  }

  private isoTime(ms: number): string {
    if (ms !== this.lastTime.ms) this.lastTime = { ms, iso: new Date(ms).toISOString() };
    return this.lastTime.iso;
  }

  /**
   * Checks, stores and indexes one entry. An entry that fails its schema or JSON is refused
   * before anything changes; one whose write fails is taken out of the tree again.
   * @param checkpoint - the tree before a navigation that is part of this append
   */
  private append(
    fields: { type: string; [key: string]: unknown },
    checkpoint?: TreeCheckpoint,
  ): Promise<string> {
    this.assertWritable();
    let entry: SessionEntry;
    try {
      entry = this.build(fields) as SessionEntry;
    } catch (error) {
      if (checkpoint) this.tree.rollback(checkpoint);
      return Promise.reject(error);
    }
    const issue = newEntryIssue(entry);
    if (issue) {
      if (checkpoint) this.tree.rollback(checkpoint);
      return Promise.reject(new InvalidEntryError(entry.type, issue));
    }
    const before = checkpoint ?? this.tree.checkpoint();
    this.tree.add(recordOf(entry, 0));
    return this.write([JSON.stringify(entry)], entry.id, before);
  }

  private async storePointer(targetId: string | null, checkpoint: TreeCheckpoint): Promise<void> {
    const pointer = { ...this.build({ type: "leaf", targetId }), parentId: targetId };
    await this.write([JSON.stringify(pointer)], undefined, checkpoint);
  }

  private assertWritable(): void {
    if (this.readOnly) throw new SessionReadOnlyError(`${this.location} was opened read-only`);
    if (this.closed) throw new SessionReadOnlyError(`${this.location} is closed`);
    if (this.detached) throw this.detached;
    if (this.failure) {
      throw new SessionReadOnlyError(
        `an earlier write to ${this.location} failed (${String(this.failure)}); reopen the session`,
      );
    }
  }

  /**
   * Stores lines in one storage append; resolves with `result` once stored. When the
   * write fails, the tree goes back to `checkpoint`: the entry, and every entry appended
   * after it while it was in flight (the storage refuses those), are taken out again.
   */
  private write<R>(lines: readonly string[], result: R, checkpoint: TreeCheckpoint): Promise<R> {
    this.inFlight++;
    // The storage is called synchronously, so appends reach it in call order.
    const written = this.storage.append(lines).then(
      () => {
        this.settled();
        return result;
      },
      (error: unknown) =>
        this.recoverWrite(error, checkpoint).then(
          () => {
            this.settled();
            return result;
          },
          (failure: unknown) => {
            this.settled();
            throw failure;
          },
        ),
    );
    this.lastWrite = written;
    return written;
  }

  private settled(): void {
    if (--this.inFlight === 0) this.tree.commit();
  }

  private async recoverWrite(error: unknown, checkpoint: TreeCheckpoint): Promise<void> {
    if (SessionFileChangedError.isInstance(error) && error.change === "deleted") {
      try {
        // Recreate the file whole from memory: header and every entry, this one included.
        await this.storage.replace(this.serializeAll());
        return;
      } catch (replaceError) {
        error = replaceError;
      }
    }
    this.tree.rollback(checkpoint);
    this.forgetDerivedState();
    if (SessionFileChangedError.isInstance(error)) this.detached = error;
    else if (!this.storage.resume?.()) this.failure = error;
    throw error;
  }

  /** Tells the storage this session holds it for writing, with what it may ask of it. */
  private hold(): void {
    this.storage.hold?.({
      flush: () => this.flush(),
      listingState: () =>
        this.failure || this.detached
          ? undefined
          : listingStateOf(this.tree, this.firstUserMessage()),
      writable: () => !this.failure && !this.detached,
      wholeLog: () => this.serializeAll(),
    });
  }

  /** The whole session as lines: header, every entry, and a leaf pointer if the leaf moved. */
  private serializeAll(): string[] {
    const entries = this.tree.getEntries();
    const lines = [JSON.stringify(this.tree.getHeader()), ...entries.map((e) => JSON.stringify(e))];
    const leafId = this.tree.getLeafId();
    if (leafId !== (entries.at(-1)?.id ?? null)) {
      lines.push(
        JSON.stringify({ ...this.build({ type: "leaf", targetId: leafId }), parentId: leafId }),
      );
    }
    return lines;
  }
}
