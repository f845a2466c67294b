import { randomUUID } from "node:crypto";
import type {
  CommandOutcome,
  ExtensionRunner,
  RegisteredCommand,
  RenderedMessage,
  SessionStartReason,
  ToolUpdateListener,
} from "@arbor/extensions-api";
import type { ImagePart, Model, ReasoningLevel } from "@arbor/providers";
import { FileSessionStore, isEntryOfType, type Session } from "@arbor/session-store";
import {
  AgentBusyError,
  AgentClosedError,
  type AgentCompactionOutcome,
  type AgentRun,
  type AgentSession,
  connectMcpServers,
  type McpConnections,
  type TreeNavigation,
} from "@arbor/turn-runner";
import type { AgentDefinition, ModelTargetSpec } from "../definition/index.js";
import { parseModelTargetSpec } from "../definition/index.js";
import { InvalidHostOptionsError } from "../errors/index.js";
import {
  AgentTree,
  agentTreeOf,
  type ChildAgentSpec,
  type HostRun,
  isTree,
  type PlaceAgent,
  singleAgentDefinition,
  type TreeOptions,
} from "../orchestration/index.js";
import {
  buildAgent,
  dedupe,
  type HostSetup,
  loadDefinitionExtensions,
  modelFor,
  pickTools,
} from "./build-agent.js";
import { withDefaultReasoning } from "./default-reasoning.js";
import type {
  HostCheckpointRecord,
  HostCheckpoints,
  HostFileChange,
  HostRewind,
  RewindOptions,
} from "./host-checkpoints.js";
import type { AgentHostOptions, HostAgentOptions, SessionChoice } from "./host-options.js";
import { hostSessionActions } from "./host-session-actions.js";
import { type AgentHostState, deriveHostState, type HostActivity } from "./host-state.js";
import { checkSessionChoice, checkStoreChoice, openSessionChoice } from "./session-choice.js";
import { singleRun } from "./single-run.js";

/**
 * One agent on one session of a store, as every app drives it: prompts, stop and abort,
 * model and thinking level, tree navigation, forks, session switches, compaction and
 * close. The extensions' session lifecycle is the host's: `session_start` with its reason
 * when a session is taken up, `session_shutdown` exactly once when it is left. Its
 * {@link AgentHost.state} is derived from the session and the agent on every call.
 *
 * @example
 * ```ts
 * const host = await AgentHost.open({
 *   sessionDir: ".arbor/sessions",
 *   create: { cwd: process.cwd() },
 *   agent: await loadAgentTree(".arbor/agents/reviewer.md"),
 *   models: { providers: { openai: { api: "openai-chat", apiKey } } },
 * });
 * const run = host.prompt("Review the last commit");
 * for await (const event of run.events) if (event.type === "text_delta") write(event.delta);
 * await run.result;
 * await host.close();
 * ```
 */
export class AgentHost {
  private activity: HostActivity | undefined;
  /** The change running now (navigate, compact, fork, switch), which close() waits for. */
  private pending: Promise<unknown> | undefined;
  /** Aborted by close(), so a compaction running then ends early. */
  private readonly lifetime = new AbortController();
  private closing: Promise<void> | undefined;
  private readonly runListeners = new Set<(run: AgentRun) => void>();
  private readonly sessionListeners = new Set<(session: Session) => void>();
  /** Runs under way (prompts and runs extensions started), for {@link waitForIdle}. */
  private readonly runs = new Set<Promise<unknown>>();
  /** The run id the root agent's next run takes (a tree's run draws it before it starts). */
  private claimedRunId: string | undefined;
  /** The agent tree's runs, when the agent names other agents. */
  private tree: AgentTree | undefined;
  // Set once open() returns; `setup` is built before the host exists.
  private currentAgent!: AgentSession;

  private constructor(
    private readonly setup: HostSetup,
    private currentSession: Session,
  ) {}

  /**
   * Opens or creates the session, builds the agent the definition describes on it, and
   * starts the extensions (`session_start`, reason `startup` or `resume`).
   * @throws InvalidHostOptionsError for options that cannot work (both or neither of `sessionId`
   *   and `create`, an unknown tool name, extensions without a runner)
   * @throws UnknownProviderError or MissingApiKeyError for a model target that cannot be built
   * @throws the store's errors (`SessionNotFoundError`, `SessionLockedError`)
   */
  static async open(options: AgentHostOptions): Promise<AgentHost> {
    checkStoreChoice(options);
    checkSessionChoice(options);
    const node = await agentTreeOf(options.agent);
    const { definition } = node;
    if (definition.extensions?.length && !options.extensions) {
      throw new InvalidHostOptionsError(
        "extensions",
        "the definition lists extensions; pass an ExtensionRunner to load them into",
      );
    }
    // The tree's tools find its runs through the host, which exists only after the session
    // opened; `self` is set right after, before any prompt can run.
    let self: AgentHost | undefined;
    const tree = isTree(node)
      ? new AgentTree(node, treeOptionsOf(options), (spec) => {
          if (!self) throw new Error("the agent host is not open yet");
          return self.openChild(spec);
        })
      : undefined;
    const tools = pickTools(definition, options.tools ?? [], tree?.rootTools);
    // Build the models first: a bad target fails before anything is opened.
    const models = definition.models.map((target) => modelFor(options, definition, target));
    const ownsStore = options.store === undefined;
    const store = options.store ?? new FileSessionStore({ root: options.sessionDir as string });
    let session: Session | undefined;
    let mcp: McpConnections | undefined;
    let agent: AgentSession | undefined;
    try {
      session = await openSessionChoice(store, options, options);
      if (options.extensions && definition.extensions) {
        await loadDefinitionExtensions(options.extensions, definition.extensions);
      }
      if (definition.mcpServers?.length) {
        mcp = await connectMcpServers(definition.mcpServers);
      }
      const telemetry = options.agentOptions?.telemetry;
      const agentOptions: HostAgentOptions = {
        ...options.agentOptions,
        // The root's runs of a tree's prompt start below its `arbor.orchestration` span.
        ...(tree && telemetry
          ? {
              telemetry: {
                ...telemetry,
                get parentContext() {
                  return tree.traceContext ?? telemetry.parentContext;
                },
              },
            }
          : {}),
        ancestry: {
          ...options.agentOptions?.ancestry,
          agentPath: options.agentOptions?.ancestry?.agentPath ?? definition.name,
        },
        generateRunId: () => (self ? self.drawRunId() : randomUUID()),
      };
      const setup: HostSetup = { options, definition, agentOptions, store, ownsStore, tools, mcp };
      const host = new AgentHost(setup, session);
      self = host;
      host.tree = tree;
      agent = buildAgent(setup, session, models);
      host.currentAgent = agent;
      host.follow(agent);
      if (options.onRun) host.onRun(options.onRun);
      if (options.extensions) {
        if (options.ui) options.extensions.bindUI(options.ui);
        options.extensions.bindSessionActions(hostSessionActions(host));
      }
      const reason =
        options.startReason ?? (options.sessionId !== undefined ? "resume" : "startup");
      await agent.extensions?.start(reason);
      return host;
    } catch (error) {
      await agent?.shutdown().catch(() => undefined);
      await mcp?.close().catch(() => undefined);
      await session?.close().catch(() => undefined);
      if (ownsStore) await store.close().catch(() => undefined);
      throw error;
    }
  }

  /** The session the agent works in now (it changes on {@link fork} and {@link switchSession}). */
  get session(): Session {
    return this.currentSession;
  }

  /** The root agent's definition (the agent the host was opened with, or its tree's root). */
  get definition(): AgentDefinition {
    return this.setup.definition;
  }

  /** The root agent's path: the first part of every agent path of its runs. */
  get agentPath(): string {
    return this.setup.agentOptions.ancestry?.agentPath ?? this.definition.name;
  }

  /** The state now, derived from the session and the agent. */
  state(): AgentHostState {
    return deriveHostState(
      this.currentSession,
      this.currentAgent,
      this.definition.thinking,
      this.activity ?? (this.tree?.running ? "prompt" : undefined),
      this.closing !== undefined,
    );
  }

  /**
   * Calls `listener` with every run extensions start, on this session and the ones after
   * it, so an app can show them. Returns a function that removes the listener.
   */
  onRun(listener: (run: AgentRun) => void): () => void {
    this.runListeners.add(listener);
    return () => this.runListeners.delete(listener);
  }

  /** Calls `listener` with the new session after each fork or switch. Returns a remover. */
  onSessionChange(listener: (session: Session) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  /**
   * Sends a prompt to the agent. An agent tree runs whole: the root's advisors first, the
   * root, a router's destination, the handoff; sub-agents as the agents call them. The run
   * streams the answering agents' turn-runner events and the tree's own (`child_start`,
   * `child_end`, `handoff`, `orchestration_end`) in one sequence.
   * @throws AgentBusyError (turn-runner) while a prompt or another change runs
   * @throws AgentClosedError (turn-runner) after {@link close}
   */
  prompt(text: string, images?: readonly ImagePart[]): HostRun {
    this.assertIdle("prompt");
    if (!this.tree) {
      const agent = this.currentAgent;
      return singleRun(this.track(agent.prompt(text, images)), this.agentPath, agent);
    }
    const runId = this.drawRunId();
    const header = this.currentSession.getHeader();
    const run = this.tree.start({
      root: this.rootAgent(runId, images),
      prompt: text,
      runId,
      originId: this.setup.agentOptions.ancestry?.originId ?? runId,
      agentPath: this.agentPath,
      store: this.setup.store,
      cwd: header.cwd ?? "/",
      generateRunId: () => this.drawRunId(),
      now: this.setup.options.agentOptions?.now ?? Date.now,
    });
    this.track(run);
    return run;
  }

  /**
   * Runs an extension's `/command`. When the command returns text, the host sends it as
   * the next prompt and returns that run beside the outcome.
   * @returns the outcome; `run` when the command asked for a prompt
   */
  async runCommand(
    name: string,
    args = "",
    options: { signal?: AbortSignal } = {},
  ): Promise<{ outcome: CommandOutcome; run?: HostRun }> {
    const extensions = this.currentAgent.extensions;
    if (!extensions) return { outcome: { status: "unknown_command" } };
    const outcome = await extensions.runCommand(name, args, options);
    if (outcome.status !== "done" || outcome.prompt === undefined) return { outcome };
    return { outcome, run: this.prompt(outcome.prompt) };
  }

  /** The `/commands` the extensions registered, for an app's help and completion. */
  commands(): RegisteredCommand[] {
    return this.currentAgent.extensions?.getCommands() ?? [];
  }

  /**
   * An extension's rendering of a displayed custom message (its registered renderer's
   * lines); `undefined` without a renderer for its type.
   */
  renderMessage(
    message: Parameters<ExtensionRunner["renderMessage"]>[0],
    options?: Parameters<ExtensionRunner["renderMessage"]>[1],
  ): RenderedMessage | undefined {
    return this.setup.options.extensions?.renderMessage(message, options);
  }

  /** Calls `listener` with every progress report of a running extension tool; returns a remover. */
  onToolUpdate(listener: ToolUpdateListener): () => void {
    return this.setup.options.extensions?.onToolUpdate(listener) ?? (() => false);
  }

  /**
   * Resolves once no prompt, extension run or change (navigate, compact, fork, switch) runs,
   * and every run extensions started (`sendUserMessage`, `triggerTurn`) has ended.
   */
  async waitForIdle(): Promise<void> {
    do {
      while (this.state().busy !== undefined && !this.closing) {
        const under = [...this.runs, ...(this.pending ? [this.pending] : [])];
        // A run started outside the host (the agent directly) is polled for.
        const wait = under.length > 0 ? Promise.race(under) : delay(10);
        await wait.catch(() => undefined);
      }
      if (!this.closing) await this.currentAgent.extensions?.idle();
    } while (this.state().busy !== undefined && !this.closing);
  }

  /** The models the definition's targets name, those the host can build. */
  catalogue(): Model[] {
    return this.definition.models.flatMap((target) => {
      try {
        return [modelFor(this.setup.options, this.definition, target)];
      } catch {
        return [];
      }
    });
  }

  /**
   * Leaves the current session for a new, empty one in the same project folder (reason
   * `new`); see {@link switchSession}.
   */
  newSession(): Promise<Session> {
    const cwd = this.currentSession.getHeader().cwd ?? this.setup.options.extensions?.cwd ?? ".";
    return this.switchSession({ create: { cwd } });
  }

  /**
   * Asks the running prompt to finish gracefully with one final turn (every agent of a
   * tree's run; no new child starts); nothing when idle.
   */
  stop(): void {
    if (!this.tree?.stop()) this.currentAgent.stop();
  }

  /**
   * Ends the running prompt at once (every agent of a tree's run); the partial answer is
   * stored, marked aborted.
   */
  abort(): void {
    if (!this.tree?.abort()) this.currentAgent.abort();
  }

  /**
   * Sends the following requests to another model: a `provider/model` text, a target, or a
   * model. Stored as a `model_change` entry.
   * @throws InvalidHostOptionsError for a text that is not a target; the model errors of {@link AgentHost.open}
   */
  async setModel(target: string | ModelTargetSpec | Model): Promise<void> {
    this.assertIdle("setModel");
    const spec = typeof target === "string" ? parseModelTargetSpec(target) : target;
    if (spec === undefined) {
      throw new InvalidHostOptionsError("model", `"${String(target)}" is not provider/model`);
    }
    const model = "stream" in spec ? spec : modelFor(this.setup.options, this.definition, spec);
    await this.currentAgent.setModel(withDefaultReasoning(model, this.definition.thinking));
  }

  /**
   * Sets the reasoning level of the following requests, stored on the path.
   * @throws InvalidThinkingLevelError (turn-runner) for an unknown level
   */
  async setThinkingLevel(level: ReasoningLevel): Promise<void> {
    this.assertIdle("setThinkingLevel");
    await this.currentAgent.setThinkingLevel(level);
  }

  /**
   * Moves the leaf to `entryId` (`null`: before the first entry), optionally summarizing the
   * branch left; extensions hear `session_before_tree`/`session_tree`.
   */
  async navigate(
    entryId: string | null,
    options: { summarize?: boolean; customInstructions?: string } = {},
  ): Promise<TreeNavigation> {
    return this.busyWith("navigate", () => this.currentAgent.navigateTree(entryId, options));
  }

  /**
   * Goes back to an entry: the conversation (the leaf moves there, as {@link navigate}), the
   * code (the files become what that entry saw), or both. The files left are recorded first
   * (an `arbor.checkpoint` entry, `before_rewind`), so going back is itself a move in the
   * tree and nothing is lost: redo is a rewind to the entry left. A code-only rewind adds a
   * `rewind` checkpoint at the leaf. With `dryRun` nothing changes; the result says what would.
   * @throws InvalidHostOptionsError for an unknown entry, or code without `checkpoints`
   * @throws CheckpointError (`@arbor/workspace`) when no checkpoint knows the entry's files
   *   (for `code`; `both` then moves the conversation alone, and the result has no `code`),
   *   or a restore stopped (the files are put back as they were)
   * @throws AgentBusyError (turn-runner) while a prompt or another change runs
   */
  async rewind(entryId: string | null, options: RewindOptions = {}): Promise<HostRewind> {
    const to = options.to ?? "both";
    const dryRun = options.dryRun ?? false;
    return this.busyWith("rewind", async () => {
      const session = this.currentSession;
      if (entryId !== null && session.getEntry(entryId) === undefined) {
        throw new InvalidHostOptionsError("entryId", `${entryId} is not an entry of the session`);
      }
      let checkpoints = to === "conversation" ? undefined : this.requireCheckpoints();
      // Both, where no checkpoint knows the files (no writing tool ever ran there): the
      // files were never changed by the agent, so the conversation alone moves.
      if (to === "both" && checkpoints?.stateAt(session, entryId) === undefined) {
        checkpoints = undefined;
      }
      const code = await checkpoints?.restoreTo(session, entryId, {
        dryRun,
        markLeaf: to === "code",
      });
      if (dryRun || to === "code") return { entryId, to, dryRun, ...(code ? { code } : {}) };
      const navigation = await this.currentAgent.navigateTree(entryId, {
        ...(options.summarize !== undefined ? { summarize: options.summarize } : {}),
      });
      return { entryId, to, dryRun, ...(code ? { code } : {}), navigation };
    });
  }

  /** The session's checkpoint entries, every branch, in the order written (none without `checkpoints`). */
  checkpoints(): HostCheckpointRecord[] {
    return this.setup.options.checkpoints?.list(this.currentSession) ?? [];
  }

  /** The checkpoint whose files an entry saw (default: the leaf), if any. */
  checkpointAt(entryId?: string | null): HostCheckpointRecord | undefined {
    const at = entryId === undefined ? this.currentSession.getLeafId() : entryId;
    return this.setup.options.checkpoints?.stateAt(this.currentSession, at);
  }

  /**
   * How the files now differ from what an entry saw; by default the current turn's user
   * message (the changes of this turn).
   * @throws InvalidHostOptionsError without `checkpoints`; CheckpointError when no checkpoint knows the entry
   */
  async diff(entryId?: string | null): Promise<HostFileChange[]> {
    const checkpoints = this.requireCheckpoints();
    this.assertIdle("diff");
    const at = entryId === undefined ? this.turnStartId() : entryId;
    return checkpoints.diffSince(this.currentSession, at);
  }

  /** The last user message on the path (the current turn's start), or null. */
  private turnStartId(): string | null {
    const path = this.currentSession.getBranch();
    for (let at = path.length - 1; at >= 0; at--) {
      const entry = path[at];
      if (entry && isEntryOfType(entry, "message") && entry.message.role === "user") {
        return entry.id;
      }
    }
    return null;
  }

  private requireCheckpoints(): HostCheckpoints {
    const checkpoints = this.setup.options.checkpoints;
    if (!checkpoints) {
      throw new InvalidHostOptionsError(
        "checkpoints",
        "the host was opened without workspace checkpoints; only the conversation can be rewound",
      );
    }
    return checkpoints;
  }

  /**
   * Takes a user message back to be edited: moves the leaf to the message's parent (so the
   * next prompt becomes its sibling), optionally summarizing the branch left, and returns
   * the message's text. Nothing is deleted; the old branch stays in the tree.
   * @throws InvalidHostOptionsError when the entry is not a user message
   */
  async editMessage(
    entryId: string,
    options: { summarize?: boolean; customInstructions?: string } = {},
  ): Promise<{ text: string; navigation: TreeNavigation }> {
    this.assertIdle("editMessage");
    const entry = this.currentSession.getEntry(entryId);
    if (!entry || !isEntryOfType(entry, "message") || entry.message.role !== "user") {
      throw new InvalidHostOptionsError(
        "entryId",
        `${entryId} is not a user message of the session; only user messages can be edited`,
      );
    }
    const text = userText(entry.message.content);
    const navigation = await this.navigate(entry.parentId, options);
    return { text, navigation };
  }

  /**
   * Compacts the session now, focused by `instructions`.
   * @returns what happened; a failed summary is `{ status: "failed", error }`
   */
  async compact(instructions?: string, signal?: AbortSignal): Promise<AgentCompactionOutcome> {
    const signals = signal ? [signal, this.lifetime.signal] : [this.lifetime.signal];
    return this.busyWith("compact", () =>
      this.currentAgent.compact(instructions, AbortSignal.any(signals)),
    );
  }

  /**
   * Copies the path from the root to `entryId` (default: the leaf) into a new session of
   * the store and continues there: the old session's extensions hear `session_shutdown`,
   * the new one's `session_start` (`fork`), and the old session is closed.
   * @returns the new session
   * @throws InvalidHostOptionsError when the session is empty; `EntryNotFoundError` for an unknown entry
   */
  async fork(entryId?: string): Promise<Session> {
    return this.busyWith("fork", async () => {
      const from = entryId ?? this.currentSession.getLeafId();
      if (from === null) {
        throw new InvalidHostOptionsError(
          "entryId",
          "the session is empty; there is nothing to fork",
        );
      }
      const forked = await this.setup.store.fork(this.currentSession.id, from, {
        ...(this.setup.options.tenant !== undefined ? { tenant: this.setup.options.tenant } : {}),
      });
      await this.replaceSession(forked, "fork");
      return forked;
    });
  }

  /**
   * Leaves the current session for another of the store (`{ sessionId }`, reason `resume`)
   * or a new one (`{ create }`, reason `new`). The next session is opened first, so a
   * failure leaves the host where it was.
   * @returns the new session
   */
  async switchSession(choice: SessionChoice): Promise<Session> {
    return this.busyWith("switch", async () => {
      checkSessionChoice(choice);
      const next = await openSessionChoice(this.setup.store, choice, this.setup.options);
      await this.replaceSession(next, choice.sessionId !== undefined ? "resume" : "new");
      return next;
    });
  }

  /**
   * Ends the running prompt, tells extensions (`session_shutdown`, once), closes the agent,
   * the session, MCP servers and a store the host made. Calling it again waits for the first.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    this.lifetime.abort();
    // A fork or switch under way finishes first, so the session it takes up is the one closed.
    await this.pending?.catch(() => undefined);
    // A tree's run ends first: its children record their outcome in this session.
    if (this.tree?.abort()) await Promise.allSettled([...this.runs]);
    this.activity = "close";
    const failures: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>) => {
      await step().catch((error: unknown) => failures.push(error));
    };
    await attempt(() => this.currentAgent.shutdown());
    this.setup.options.extensions?.bindSessionActions(undefined);
    await attempt(() => this.currentSession.close());
    if (this.setup.mcp) await attempt(() => (this.setup.mcp as McpConnections).close());
    if (this.setup.ownsStore) await attempt(() => this.setup.store.close());
    this.activity = undefined;
    if (failures.length > 0)
      throw new AggregateError(failures, "the agent host did not close cleanly");
  }

  /** Shuts the current agent down (extensions hear `session_shutdown`) and starts one on `next`. */
  private async replaceSession(next: Session, reason: SessionStartReason): Promise<void> {
    const previous = this.currentSession;
    const models = this.definition.models.map((target) =>
      modelFor(this.setup.options, this.definition, target),
    );
    // The model chosen last stays in use when the session has none of its own.
    models.unshift(this.currentAgent.model);
    await this.currentAgent.shutdown().catch(() => undefined);
    await previous.close().catch(() => undefined);
    this.currentSession = next;
    this.currentAgent = buildAgent(this.setup, next, dedupe(models));
    this.follow(this.currentAgent);
    await this.currentAgent.extensions?.start(reason, previous.id);
    for (const listener of this.sessionListeners) listener(next);
  }

  private follow(agent: AgentSession): void {
    agent.extensions?.onRun((run) => {
      this.track(run);
      for (const listener of this.runListeners) listener(run);
    });
  }

  /**
   * The id of the root agent's next run: the one a tree's run claimed for it, else a new
   * one from the app's `generateRunId`, else a random UUID.
   */
  private drawRunId(): string {
    const claimed = this.claimedRunId;
    if (claimed !== undefined) {
      this.claimedRunId = undefined;
      return claimed;
    }
    return this.setup.options.agentOptions?.generateRunId?.() ?? randomUUID();
  }

  /** The root agent as the tree's run drives it: this host's agent, on its session. */
  private rootAgent(runId: string, images: readonly ImagePart[] | undefined): PlaceAgent {
    const host = this;
    return {
      get session() {
        return host.currentSession;
      },
      prompt: (text) => {
        this.claimedRunId = runId;
        return this.track(this.currentAgent.prompt(text, images));
      },
      stop: () => this.currentAgent.stop(),
      abort: () => this.currentAgent.abort(),
      close: async () => undefined,
    };
  }

  /** Opens a child agent of the tree in its own session of the store. */
  private async openChild(spec: ChildAgentSpec): Promise<PlaceAgent> {
    const { options } = this.setup;
    const telemetry = options.agentOptions?.telemetry;
    let first = true;
    const { definition } = spec.node;
    const single = singleAgentDefinition(definition);
    return AgentHost.open({
      store: this.setup.store,
      create: spec.create,
      agent:
        single.tools === undefined
          ? single
          : { ...single, tools: [...single.tools, ...spec.ownTools.map((tool) => tool.name)] },
      models: options.models,
      tools: [...(options.tools ?? []), ...spec.ownTools],
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.ruleOptions ? { ruleOptions: options.ruleOptions } : {}),
      ...(options.projectRoot !== undefined ? { projectRoot: options.projectRoot } : {}),
      agentOptions: {
        ...options.agentOptions,
        ...(spec.traceContext !== undefined
          ? { telemetry: { ...telemetry, parentContext: spec.traceContext } }
          : {}),
        ancestry: spec.ancestry,
        // The child runs once; its run id was drawn before, so its children can name it.
        generateRunId: () => {
          if (!first) return this.drawRunId();
          first = false;
          return spec.runId;
        },
      },
    });
  }

  private track<T extends { result: Promise<unknown> }>(run: T): T {
    const settled = run.result.then(
      () => undefined,
      () => undefined,
    );
    this.runs.add(settled);
    void settled.then(() => this.runs.delete(settled));
    return run;
  }

  private async busyWith<T>(activity: HostActivity, work: () => Promise<T>): Promise<T> {
    this.assertIdle(activity);
    this.activity = activity;
    const running = work();
    this.pending = running;
    try {
      return await running;
    } finally {
      this.pending = undefined;
      if (this.activity === activity) this.activity = undefined;
    }
  }

  private assertIdle(operation: string): void {
    if (this.closing) {
      throw new AgentClosedError(
        operation,
        `${operation}(): the agent host was closed; open a new one`,
      );
    }
    const busy =
      this.activity ?? (this.currentAgent.running || this.tree?.running ? "prompt" : undefined);
    if (busy) {
      throw new AgentBusyError(
        operation,
        `${operation}() cannot run while the host is busy (${busy}); await it or abort() it first`,
      );
    }
  }
}

/** What the tree's run takes of the host's options. */
function treeOptionsOf(options: AgentHostOptions): TreeOptions {
  const telemetry = options.agentOptions?.telemetry;
  return {
    ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
    ...(telemetry !== undefined ? { telemetry } : {}),
    ...(options.limits !== undefined ? { limits: options.limits } : {}),
    ...(options.generateNonce !== undefined ? { generateNonce: options.generateNonce } : {}),
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function userText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((part: { type?: unknown; text?: unknown }) =>
      part?.type === "text" && typeof part.text === "string" ? [part.text] : [],
    )
    .join("");
}
