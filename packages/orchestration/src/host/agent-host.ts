import type { CommandOutcome, SessionStartReason, ToolUpdateListener } from "@arbor/extensions-api";
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
  buildAgent,
  dedupe,
  type HostSetup,
  loadDefinitionExtensions,
  modelFor,
  pickTools,
} from "./build-agent.js";
import { withDefaultReasoning } from "./default-reasoning.js";
import type { AgentHostOptions, SessionChoice } from "./host-options.js";
import { hostSessionActions } from "./host-session-actions.js";
import { type AgentHostState, deriveHostState, type HostActivity } from "./host-state.js";
import { checkSessionChoice, checkStoreChoice, openSessionChoice } from "./session-choice.js";

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
 *   definition: await loadAgentFile(".arbor/agents/reviewer.md"),
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

  private constructor(
    private readonly setup: HostSetup,
    private currentSession: Session,
    private currentAgent: AgentSession,
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
    const tools = pickTools(options.definition, options.tools ?? []);
    if (options.definition.extensions?.length && !options.extensions) {
      throw new InvalidHostOptionsError(
        "extensions",
        "the definition lists extensions; pass an ExtensionRunner to load them into",
      );
    }
    // Build the models first: a bad target fails before anything is opened.
    const models = options.definition.models.map((target) => modelFor(options, target));
    const ownsStore = options.store === undefined;
    const store = options.store ?? new FileSessionStore({ root: options.sessionDir as string });
    let session: Session | undefined;
    let mcp: McpConnections | undefined;
    let agent: AgentSession | undefined;
    try {
      session = await openSessionChoice(store, options, options);
      if (options.extensions && options.definition.extensions) {
        await loadDefinitionExtensions(options.extensions, options.definition.extensions);
      }
      if (options.definition.mcpServers?.length) {
        mcp = await connectMcpServers(options.definition.mcpServers);
      }
      const setup: HostSetup = { options, store, ownsStore, tools, mcp };
      agent = buildAgent(setup, session, models);
      const host = new AgentHost(setup, session, agent);
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

  /** The agent of the current session, for what the host does not wrap (extension commands). */
  get agent(): AgentSession {
    return this.currentAgent;
  }

  /** The definition the host was opened with. */
  get definition(): AgentDefinition {
    return this.setup.options.definition;
  }

  /** The state now, derived from the session and the agent. */
  state(): AgentHostState {
    return deriveHostState(
      this.currentSession,
      this.currentAgent,
      this.definition.thinking,
      this.activity,
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
   * Sends a prompt; see `AgentSession.prompt`.
   * @throws AgentBusyError (turn-runner) while a prompt or another change runs
   * @throws AgentClosedError (turn-runner) after {@link close}
   */
  prompt(text: string, images?: readonly ImagePart[]): AgentRun {
    this.assertIdle("prompt");
    return this.track(this.currentAgent.prompt(text, images));
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
  ): Promise<{ outcome: CommandOutcome; run?: AgentRun }> {
    const extensions = this.currentAgent.extensions;
    if (!extensions) return { outcome: { status: "unknown_command" } };
    const outcome = await extensions.runCommand(name, args, options);
    if (outcome.status !== "done" || outcome.prompt === undefined) return { outcome };
    return { outcome, run: this.prompt(outcome.prompt) };
  }

  /** Calls `listener` with every progress report of a running extension tool; returns a remover. */
  onToolUpdate(listener: ToolUpdateListener): () => void {
    return this.setup.options.extensions?.onToolUpdate(listener) ?? (() => false);
  }

  /** Resolves once no prompt, extension run or change (navigate, compact, fork, switch) runs. */
  async waitForIdle(): Promise<void> {
    while (this.state().busy !== undefined && !this.closing) {
      const under = [...this.runs, ...(this.pending ? [this.pending] : [])];
      // A run started outside the host (the agent directly) is polled for.
      const wait = under.length > 0 ? Promise.race(under) : delay(10);
      await wait.catch(() => undefined);
    }
  }

  /** The models the definition's targets name, those the host can build. */
  catalogue(): Model[] {
    return this.definition.models.flatMap((target) => {
      try {
        return [modelFor(this.setup.options, target)];
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

  /** Asks the running prompt to finish gracefully with one final turn; nothing when idle. */
  stop(): void {
    this.currentAgent.stop();
  }

  /** Ends the running prompt at once; the partial answer is stored, marked aborted. */
  abort(): void {
    this.currentAgent.abort();
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
    const model = "stream" in spec ? spec : modelFor(this.setup.options, spec);
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
    const models = this.setup.options.definition.models.map((target) =>
      modelFor(this.setup.options, target),
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

  private track(run: AgentRun): AgentRun {
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
    const busy = this.activity ?? (this.currentAgent.running ? "prompt" : undefined);
    if (busy) {
      throw new AgentBusyError(
        operation,
        `${operation}() cannot run while the host is busy (${busy}); await it or abort() it first`,
      );
    }
  }
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
