import type {
  AgentHost,
  CommandOutcome,
  RegisteredCommand,
  RenderedMessage,
  RewindTarget,
  RunEvent,
} from "@arbor/orchestration";
import { type Model, REASONING_LEVELS, type ReasoningLevel } from "@arbor/orchestration";
import { isEntryOfType, type Session } from "@arbor/session-store";
import type { ProjectRules } from "../agent/agent-factory.js";
import { diffLines, rewindLines } from "../checkpoints/rewind-text.js";
import type { ProjectContext } from "../context/index.js";
import type { McpServerSummary } from "../mcp/index.js";
import { UnpricedModels } from "../output/index.js";
import { retryUnansweredPrompt, type UnansweredPrompt } from "../signals/index.js";
import { childAnswers, withChildAnswers } from "./child-answers.js";
import { type ChildSessionSnapshot, readChildSession } from "./child-session-snapshot.js";
import { withNewCustomMessages } from "./custom-message-items.js";
import { applyOrchestrationEvent } from "./orchestration-items.js";
import { nextItemId, type TranscriptItem, transcriptFromSession } from "./transcript.js";
import { applyAgentEvent } from "./transcript-events.js";

/** Everything the interactive app shows, as one immutable snapshot. */
export interface ChatState {
  items: readonly TranscriptItem[];
  running: boolean;
  /** A long action other than a prompt (compacting, summarizing), shown with the spinner. */
  busy: string | undefined;
  title: string | undefined;
  modelLabel: string;
  thinking: ReasoningLevel;
  usage: { input: number; output: number };
  cost: number;
  contextTokens: number;
  contextWindow: number;
  sessionFile: string;
  /** The agent file each prompt runs on (absolute), when the app was opened with one. */
  agentFile: string | undefined;
}

/** Options of {@link ChatController}. */
export interface ChatControllerOptions {
  /** The agent host the app drives; the controller closes it on {@link ChatController.close}. */
  host: AgentHost;
  /** The stream rules loaded for the project (shown by `/rules`). */
  rules: ProjectRules;
  /** The instructions files given to the model (shown by `/context`). */
  projectContext?: ProjectContext;
  /** The whole system prompt the model is sent (shown by `/context`). */
  systemPrompt?: string | undefined;
  /** Builds the model a `/model` argument names (`id` or `provider/id`). */
  selectModel: (spec: string) => Model;
  /** The MCP servers connected, with their tools (shown by `/mcp`). Default: none. */
  mcpServers?: readonly McpServerSummary[];
  /** The configured models `/model` lists (`provider/id` and details). Default: none. */
  listModels?: () => readonly { spec: string; details: string | undefined }[];
  /**
   * Applied to every notice (errors, warnings, command output) before it is shown, so the
   * configured API keys never appear on screen. Default: notices are shown as they are.
   */
  redact?: (text: string) => string;
  /**
   * The agent file the host runs (absolute), shown in the footer; its runs' answers are
   * marked with the agent path of the agent giving each. Default: none.
   */
  agentFile?: string;
  /** Opens a session of the store read-only by id (`/tree` opens child sessions with it). */
  openSession?: (id: string) => Promise<Session>;
}

/**
 * The interactive app's adapter over an {@link AgentHost}: it turns agent events into
 * transcript items and slash commands into host calls. Everything the footer shows is
 * derived from the host's state; the controller keeps only what is the app's own (the
 * transcript on screen, and what this app run used).
 */
export class ChatController {
  private state: ChatState;
  private readonly listeners = new Set<() => void>();
  private readonly host: AgentHost;
  private readonly unpriced = new UnpricedModels();

  constructor(private readonly options: ChatControllerOptions) {
    this.host = options.host;
    // Runs extensions start (commands, events) stream into the transcript like the user's.
    this.host.onRun((run) => void this.follow(run));
    this.state = this.snapshot({
      items: this.withPriceNotice(this.stored(this.host.session)),
      running: false,
    });
  }

  /** The session the app works in. */
  get currentSession(): Session {
    return this.host.session;
  }

  /** The `/commands` the extensions registered. */
  extensionCommands(): RegisteredCommand[] {
    return this.host.commands();
  }

  /** An extension's rendering of a displayed custom message of the current session. */
  renderMessage(...args: Parameters<AgentHost["renderMessage"]>): RenderedMessage | undefined {
    return this.host.renderMessage(...args);
  }

  /**
   * Runs an extension's `/command`; text the command returns is sent as the next prompt
   * and streamed into the transcript like the user's.
   */
  async runCommand(name: string, args: string): Promise<CommandOutcome> {
    const { outcome, run } = await this.host.runCommand(name, args);
    if (run && outcome.status === "done" && outcome.prompt !== undefined) {
      const items: TranscriptItem[] = [
        ...this.state.items,
        { kind: "user", id: nextItemId("u"), text: outcome.prompt },
      ];
      this.update({ items, running: true });
      void this.follow(run);
    }
    return outcome;
  }

  /** The stream rules loaded for the project. */
  /** The instructions files given to the model (none when the app was not given any). */
  get projectContext(): ProjectContext {
    return this.options.projectContext ?? { files: [], repositoryRoot: undefined, problems: [] };
  }

  /** The whole system prompt the model is sent, when the app knows it. */
  get systemPrompt(): string | undefined {
    return this.options.systemPrompt;
  }

  /** The MCP servers connected, with their tools. */
  get mcpServers(): readonly McpServerSummary[] {
    return this.options.mcpServers ?? [];
  }

  get rules(): ProjectRules {
    return this.options.rules;
  }

  /** How often each stream rule matched in this session, derived from the session. */
  get ruleHits(): ReadonlyMap<string, number> {
    return this.host.state().ruleHits;
  }

  /**
   * The transcript of a session as stored. The answers of an agent file's destinations and
   * handoffs live in their own sessions: they are read after, and shown under their rows.
   */
  private stored(session: Session): TranscriptItem[] {
    const items = transcriptFromSession(session);
    const open = this.options.openSession;
    if (open && items.some((item) => item.kind === "child")) {
      void childAnswers(items, open)
        .then((answers) => {
          if (answers.size > 0) this.update({ items: withChildAnswers(this.state.items, answers) });
        })
        .catch(() => undefined);
    }
    return items;
  }

  /** Subscribes to state changes (React's `useSyncExternalStore` contract). */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** The current state snapshot. */
  getState = (): ChatState => this.state;

  private snapshot(change: Partial<ChatState>): ChatState {
    const base = this.state ?? { items: [], running: false, busy: undefined };
    const host = this.host.state();
    return {
      ...base,
      ...change,
      // The session's whole use, every stored answer included, so a resume keeps the totals.
      usage: { input: host.usage.input, output: host.usage.output },
      cost: host.usage.cost,
      title: host.title,
      // The agent may follow a model chosen on the path (after /tree or /fork).
      modelLabel: `${host.model.provider}/${host.model.id}`,
      thinking: host.thinkingLevel,
      contextTokens: host.contextTokens,
      contextWindow: host.model.contextWindow,
      sessionFile: host.location,
      agentFile: this.options.agentFile,
    } as ChatState;
  }

  /**
   * Publishes a new state. Deltas pass `derive: false`: the title and the context estimate
   * (a walk over the whole path) only change when an entry is stored.
   */
  private update(change: Partial<ChatState>, derive = true): void {
    const redact = this.options.redact;
    // The model may change with any stored entry (/model, /tree, failover): a model without
    // a price is reported once, as a notice.
    if (derive)
      change = { ...change, items: this.withPriceNotice(change.items ?? this.state.items) };
    if (change.items && redact) change = { ...change, items: redactNotices(change.items, redact) };
    this.state = derive ? this.snapshot(change) : { ...this.state, ...change };
    for (const listener of this.listeners) listener();
  }

  /** `items` with a notice added when the current model has no price and was not reported. */
  private withPriceNotice(items: readonly TranscriptItem[]): readonly TranscriptItem[] {
    const text = this.unpriced.check(this.host.state().model);
    if (text === undefined) return items;
    const notice: TranscriptItem = { kind: "notice", id: nextItemId("n"), text, tone: "warning" };
    const last = items.at(-1);
    // The answer being streamed stays the last item.
    return last?.kind === "assistant" && last.status === "streaming"
      ? [...items.slice(0, -1), notice, last]
      : [...items, notice];
  }

  /** Sets the label of an entry, or clears it with an empty text; the tree shows it at once. */
  async setLabel(entryId: string, label: string): Promise<void> {
    await this.host.session.appendLabelChange(entryId, label === "" ? undefined : label);
    this.update({});
  }

  /** Adds a notice to the transcript. */
  notify(text: string, tone: "info" | "warning" | "error" = "info"): void {
    this.update({
      items: [...this.state.items, { kind: "notice", id: nextItemId("n"), text, tone }],
    });
  }

  /** Shows the stored transcript again (after the leaf moved or the session changed). */
  reload(): void {
    this.update({ items: this.stored(this.host.session) });
  }

  /** Sends a prompt and streams the answer into the transcript; resolves when the run ends. */
  async send(text: string): Promise<void> {
    if (this.busy()) return;
    const items: TranscriptItem[] = [
      ...this.state.items,
      { kind: "user", id: nextItemId("u"), text },
    ];
    this.update({ items, running: true });
    await this.follow(this.host.prompt(text));
  }

  /** Whether a prompt (an agent file's run included) or a change is under way. */
  private busy(): boolean {
    return this.host.state().busy !== undefined;
  }

  /**
   * Refuses a change to the session while an agent file's run works in it, with a message
   * that says so (the host would refuse it too, as busy).
   * @throws Error saying to wait or press Esc
   */
  private assertNoAgentRun(action: string): void {
    if (this.options.agentFile === undefined || this.host.state().busy !== "prompt") return;
    throw new Error(
      `cannot ${action} while the agent file's run is under way; wait for it or press Esc to abort it`,
    );
  }

  /**
   * Streams a run (one the user started, or one an extension started) into the transcript;
   * the run's events replay from its start, so a run that began before the app did shows whole.
   */
  async follow(run: { events: AsyncIterable<RunEvent>; result: Promise<unknown> }): Promise<void> {
    this.update({ running: true });
    for await (const event of run.events) this.apply(event);
    // The footer's totals are derived from the session, where the run stored its use.
    const result = await run.result.catch((error: unknown) => {
      this.notify(
        `The run failed: ${error instanceof Error ? error.message : String(error)}`,
        "error",
      );
    });
    // An agent file's answer may come from another agent than the root (a router's destination).
    const finalAgent = (result as { finalAgent?: unknown } | undefined)?.finalAgent;
    if (typeof finalAgent === "string" && finalAgent !== this.host.agentPath) {
      this.notify(`Answered by ${finalAgent}.`);
    }
    this.update({ running: false });
  }

  /**
   * Sends a prompt that got no answer (the app was killed) again, as a sibling of the
   * unanswered message rather than a second copy after it; resolves when the run ends.
   */
  async retry(prompt: UnansweredPrompt): Promise<void> {
    if (this.busy()) return;
    const run = await retryUnansweredPrompt(this.host, prompt);
    const items = this.stored(this.host.session);
    this.update({
      items: [...items, { kind: "user", id: nextItemId("u"), text: prompt.text }],
      running: true,
    });
    await this.follow(run);
  }

  /**
   * Aborts the running prompt; the partial answer stays, marked aborted. An agent file's
   * run is aborted whole: every running child (advisors, destinations, handoffs,
   * sub-agents at any depth) ends too.
   */
  abort(): void {
    this.host.abort();
  }

  /** Resolves once no prompt, agent file's run or change is under way. */
  async waitForIdle(): Promise<void> {
    await this.host.waitForIdle();
  }

  /**
   * Folds one event into the transcript; an agent file's run shows its child runs as rows
   * and marks each answer with the agent giving it.
   */
  private apply(event: RunEvent): void {
    const delta =
      event.type === "text_delta" ||
      event.type === "thinking_delta" ||
      event.type === "toolcall_delta";
    const items =
      this.options.agentFile === undefined && "ancestry" in event
        ? applyAgentEvent(this.state.items, event)
        : applyOrchestrationEvent(this.state.items, event);
    // Extensions' displayed messages are stored during the run; they show as they arrive.
    this.update(
      { items: delta ? items : withNewCustomMessages(items, this.host.session.getBranch()) },
      !delta,
    );
  }

  /** Compacts the session now, focused by `instructions`. */
  async compact(instructions?: string): Promise<void> {
    this.assertNoAgentRun("compact");
    this.update({ busy: "compacting" });
    try {
      const outcome = await this.host.compact(instructions);
      if (outcome.status === "compacted") {
        this.update({ items: this.stored(this.host.session) });
      } else if (outcome.status === "failed") {
        const reason =
          outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
        this.notify(`Compaction failed: ${reason}`, "error");
      } else {
        this.notify(`Nothing was compacted (${outcome.status.replaceAll("_", " ")}).`);
      }
    } finally {
      this.update({ busy: undefined });
    }
  }

  /**
   * Moves the leaf to an entry, optionally summarizing the branch left. Choosing a user
   * message moves to its parent and hands its text back, to be edited and sent again.
   */
  async navigate(entryId: string, summarize: boolean): Promise<string | undefined> {
    if (this.options.agentFile !== undefined && this.busy()) {
      this.notify(
        "Could not move there: an agent file's run is under way; wait for it or press Esc.",
        "error",
      );
      return undefined;
    }
    const entry = this.host.session.getEntry(entryId);
    if (!entry) return undefined;
    const isUser = isEntryOfType(entry, "message") && entry.message.role === "user";
    this.update({ busy: summarize ? "summarizing the branch" : undefined });
    let text: string | undefined;
    try {
      if (isUser) text = (await this.host.editMessage(entryId, { summarize })).text;
      else await this.host.navigate(entryId, { summarize });
    } catch (error) {
      this.notify(
        `Could not move there: ${error instanceof Error ? error.message : String(error)}`,
        "error",
      );
      return undefined;
    } finally {
      this.update({ busy: undefined });
    }
    this.reload();
    return text;
  }

  /**
   * Rewinds to an entry (`/rewind`, the tree's `f` and `c`): the conversation, the files or
   * both, through the host; the transcript says every path changed and how to undo it.
   */
  async rewind(entryId: string | null, to: RewindTarget, dryRun = false): Promise<void> {
    this.update({ busy: dryRun ? undefined : "rewinding" });
    try {
      const done = await this.host.rewind(entryId, { to, dryRun });
      this.reload();
      this.notify(rewindLines(done, "/rewind").join("\n"));
    } catch (error) {
      this.notify(
        `Could not rewind: ${error instanceof Error ? error.message : String(error)}`,
        "error",
      );
    } finally {
      this.update({ busy: undefined });
    }
  }

  /** Shows how the files differ from what an entry saw (default: this turn's start), `/diff`. */
  async diff(entryId?: string): Promise<void> {
    const changes = await this.host.diff(entryId);
    this.notify(diffLines(changes).join("\n"));
  }

  /**
   * Switches to another session of the store (`/sessions`): the host opens it first, so a
   * failure leaves the app where it was; the old one is closed.
   */
  async switchSession(sessionId: string): Promise<void> {
    this.assertNoAgentRun("switch sessions");
    await this.host.switchSession({ sessionId });
    this.update({ items: this.stored(this.host.session) });
  }

  /**
   * Uses another model from the next request on. The agent records it as a `model_change`
   * entry and tells extensions (`model_select`).
   */
  async setModel(spec: string): Promise<void> {
    this.assertNoAgentRun("change the model");
    await this.host.setModel(this.options.selectModel(spec));
    this.update({});
  }

  /** The configured models, the one in use marked `▶`, as `/model` shows them. */
  modelList(): string {
    const current = this.state.modelLabel;
    // The label names the adapter's provider (`openai`), the list the config's names.
    const id = current.slice(current.indexOf("/") + 1);
    const inUse = (spec: string) => spec === current || spec.endsWith(`/${id}`);
    const models = this.options.listModels?.() ?? [];
    const lines = models.map(
      (model) =>
        `${inUse(model.spec) ? "▶" : " "} ${model.spec}${model.details ? `  (${model.details})` : ""}`,
    );
    if (!models.some((model) => inUse(model.spec))) lines.unshift(`▶ ${current}`);
    return `Models (/model provider/id switches):\n${lines.join("\n")}`;
  }

  /** Sets the reasoning level from the next request on, recorded in the session. */
  async setThinking(level: string): Promise<void> {
    this.assertNoAgentRun("change the thinking level");
    const known = REASONING_LEVELS.find((candidate) => candidate === level);
    if (known === undefined) {
      throw new Error(
        `"${level}" is not a thinking level; use one of ${REASONING_LEVELS.join(", ")}`,
      );
    }
    await this.host.setThinkingLevel(known as ReasoningLevel);
    this.update({});
  }

  /**
   * Copies the current path into a new session file and continues there; the host moves
   * the agent to the fork (and tells extensions), the old session is closed.
   */
  async fork(): Promise<Session | undefined> {
    this.assertNoAgentRun("fork");
    if (this.host.session.getLeafId() === null) return undefined;
    const forked = await this.host.fork();
    this.update({ items: this.stored(forked) });
    return forked;
  }

  /**
   * Reads a child session of an agent file's run read-only (`/tree`); one that cannot be
   * opened comes back as unavailable, with the reason.
   */
  async readChildSession(sessionId: string): Promise<ChildSessionSnapshot> {
    const open = this.options.openSession;
    if (!open)
      return { status: "unavailable", sessionId, reason: "this app opens no other session" };
    return readChildSession(open, sessionId);
  }

  /** The child sessions among `sessionIds` that cannot be opened (their file was deleted). */
  async missingChildSessions(sessionIds: readonly string[]): Promise<Set<string>> {
    const missing = new Set<string>();
    for (const sessionId of new Set(sessionIds)) {
      const snapshot = await this.readChildSession(sessionId);
      if (snapshot.status === "unavailable") missing.add(sessionId);
    }
    return missing;
  }

  /** Refreshes what is derived from the session (title, context) after a direct change. */
  refresh(): void {
    this.update({});
  }

  /** Closes the host: extensions hear `session_shutdown` once, the session is closed. */
  async close(): Promise<void> {
    // An agent file's run ends first (the host waits for it), so every child records its
    // outcome before the session closes.
    await this.host.close();
  }
}

/** The items with every notice's text redacted; unchanged items keep their identity. */
function redactNotices(
  items: readonly TranscriptItem[],
  redact: (text: string) => string,
): readonly TranscriptItem[] {
  let changed = false;
  const next = items.map((item) => {
    if (item.kind !== "notice") return item;
    const text = redact(item.text);
    if (text === item.text) return item;
    changed = true;
    return { ...item, text };
  });
  return changed ? next : items;
}
