import {
  type ImagePart,
  type Model,
  type ModelRequest,
  REASONING_LEVELS,
  type ReasoningLevel,
} from "@arbor/providers";
import {
  type AgentMessage,
  isEntryOfType,
  type Session,
  type SessionStorage,
} from "@arbor/session-store";
import { abortableSleep } from "./abortable-wait.js";
import type { AgentEvent, AgentFailureReason, AgentResult, AgentRun } from "./agent-events.js";
import type { AgentSessionOptions } from "./agent-session-options.js";
import { type AgentTool, toolDefinitions } from "./agent-tool.js";
import {
  type AnswerProblem,
  type DeliveredReport,
  failureReasonOf,
  feedbackText,
  persistRejection,
  reviewAnswer,
} from "./answer-review.js";
import { attemptOutcome } from "./attempt-span.js";
import {
  AgentCompaction,
  type AgentCompactionOutcome,
  compactionEvent,
} from "./compaction/agent-compaction.js";
import { CONTEXT_GUARD_CUSTOM_TYPE, ContextGuard } from "./context-guard.js";
import { toModelMessages } from "./context-messages.js";
import { EventChannel } from "./event-channel.js";
import { AgentExtensions } from "./extensions/agent-extensions.js";
import { navigateAgentTree } from "./extensions/agent-tree-navigation.js";
import { extensionCompactionHooks } from "./extensions/compaction-hooks.js";
import { ExtensionHooks } from "./extensions/extension-hooks.js";
import { applyFailover, FAILOVER_CUSTOM_TYPE, type FailoverDecision } from "./failover-policy.js";
import { FINAL_REPORT_TOOL_NAME, failedReport, ReportContract } from "./final-report.js";
import {
  FINAL_TURN_CUSTOM_TYPE,
  type FinalTurnReason,
  finalTurnInstruction,
} from "./final-turn.js";
import { type AttemptOutcome, assistantMessage, streamAttempt } from "./model-attempt.js";
import { checkPromptImages, userMessageContent } from "./prompt-input.js";
import { RunControl } from "./run-control.js";
import { accountUsage, type RunState, ZERO_USAGE } from "./run-state.js";
import { RunTrace } from "./run-trace.js";
import { type ModelTarget, TargetPool, targetRef } from "./target-pool.js";
import { type RequestedToolCall, runToolCalls } from "./tool-execution.js";
import { applyToolOutputCap } from "./tool-output/apply-tool-output-cap.js";
import type { ToolOutputStore } from "./tool-output/tool-output-store.js";
import {
  chosenModel,
  moveLeaf,
  type NavigateTreeOptions,
  type TreeNavigation,
} from "./tree-navigation.js";
import {
  injectQueuedRules,
  persistInterrupt,
  type RuleReminderContext,
  restoreTtsr,
} from "./ttsr-interrupt.js";
import { usageRecord } from "./usage-record.js";

type TurnAnswer =
  | {
      ok: true;
      /** Calls to run this turn. */
      toolCalls: RequestedToolCall[];
      finalTurn: boolean;
      /** The stored answer. */
      entryId: string;
      text: string;
      report?: DeliveredReport<unknown>;
      /** Calls beside a delivered report, answered without being run. */
      skippedCalls: RequestedToolCall[];
    }
  | { ok: false; reason: AgentFailureReason; message?: string };

/**
 * One agent talking to models, running tools and persisting every step into a session
 * tree: the user message before the provider is called, each answer when its stream ends,
 * each tool result when its tool finishes.
 *
 * @example
 * ```ts
 * const agent = new AgentSession({ targets: [{ model }], session, tools: [readFile] });
 * const run = agent.prompt("What is in README.md?");
 * for await (const event of run.events) if (event.type === "text_delta") write(event.delta);
 * const result = await run.result; // { success, reason?, turns, usage, cost, sessionFile }
 * ```
 */
export class AgentSession {
  private options: AgentSessionOptions;
  private readonly pool: TargetPool;
  private readonly tools = new Map<string, AgentTool>();
  /** Where capped tool output goes (the `toolOutput` option); disposed on `shutdown()`. */
  private readonly toolOutputStore: ToolOutputStore | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private control: RunControl | undefined;
  private runResult: Promise<AgentResult> | undefined;
  private shutDown = false;
  /** Whether `shutdown()` closes the current session (`ownsSession`, or a fork the agent made). */
  private sessionOwned: boolean;
  /** The final report a run must deliver, when `outputSchema` is set. */
  private readonly reportContract: ReportContract | undefined;
  private readonly contextGuard: ContextGuard;
  private appendChain: Promise<unknown> = Promise.resolve();
  private readonly compaction: AgentCompaction;
  private readonly extensionHooks: ExtensionHooks | undefined;
  private readonly extensionControls: AgentExtensions | undefined;

  constructor(options: AgentSessionOptions) {
    if (options.targets.length === 0) {
      throw new TypeError("AgentSession needs at least one model target in `targets`");
    }
    this.options = options;
    this.pool = new TargetPool(options.targets);
    const capped = options.toolOutput
      ? applyToolOutputCap(options.tools ?? [], options.toolOutput)
      : undefined;
    this.toolOutputStore = capped?.store;
    for (const tool of capped?.tools ?? options.tools ?? []) {
      if (this.tools.has(tool.name)) {
        throw new TypeError(`two tools are named "${tool.name}"; tool names must be unique`);
      }
      this.tools.set(tool.name, tool);
    }
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? abortableSleep;
    if (options.ttsr && (options.restoreInjectedRules ?? true)) {
      restoreTtsr(options.ttsr, options.session);
    }
    this.sessionOwned = options.ownsSession ?? false;
    this.contextGuard = new ContextGuard(options.contextGuard ?? {}, options.maxOutputTokens);
    this.reportContract =
      options.outputSchema === undefined ? undefined : new ReportContract(options.outputSchema);
    if (this.reportContract && this.tools.has(FINAL_REPORT_TOOL_NAME)) {
      throw new TypeError(
        `a tool is named "${FINAL_REPORT_TOOL_NAME}", which is reserved for the final report when outputSchema is set`,
      );
    }
    this.followChosenModel();
    // Extensions take part in automatic compactions too, unless the caller passed its own hooks.
    const compactionHooks =
      options.compactionHooks ??
      (options.extensions && extensionCompactionHooks(options.extensions));
    this.compaction = new AgentCompaction({
      session: () => this.session,
      ...(options.compaction ? { settings: options.compaction } : {}),
      ...(compactionHooks ? { hooks: compactionHooks } : {}),
      ...(options.generateTitle !== undefined ? { generateTitle: options.generateTitle } : {}),
    });
    this.extensionHooks = this.createExtensionHooks(options);
    this.extensionControls = this.extensionHooks && new AgentExtensions(this.extensionHooks);
  }

  /** The extensions given as `extensions`, for what only the app drives (lifecycle, commands, tree). */
  get extensions(): AgentExtensions | undefined {
    return this.extensionControls;
  }

  /** The session this agent persists into. */
  get session(): Session {
    return this.options.session;
  }

  /** Whether a prompt is running. */
  get running(): boolean {
    return this.control !== undefined;
  }

  /**
   * Sends a user message (the text, then any images) and runs turns until the model answers without tool calls, a
   * limit is hit or the run is aborted. The result always resolves; it rejects only when a
   * model or the storage breaks its contract (a model that throws, a failed append).
   * @throws TypeError when a prompt is already running, the agent was shut down or an image
   *   is invalid (no base64 data, not an image/* type)
   */
  prompt(text: string, images?: readonly ImagePart[]): AgentRun {
    return this.startRun(text, images === undefined ? undefined : checkPromptImages(images));
  }

  /** Starts a run for a prompt, or (no text: a run extensions trigger) from the session as it is. */
  private startRun(text: string | undefined, images?: readonly ImagePart[]): AgentRun {
    if (this.shutDown) throw new TypeError("the agent was shut down; create a new AgentSession");
    if (this.control) {
      throw new TypeError("a prompt is already running; await its result or abort() it first");
    }
    const control = new RunControl();
    const trace = new RunTrace(this.options.telemetry);
    this.control = control;
    const state: RunState = {
      channel: new EventChannel<AgentEvent>((event) => trace.observe(event)),
      trace,
      control,
      signal: control.signal,
      usage: { ...ZERO_USAGE },
      cost: 0,
      finalTurn: undefined,
      finalReport: undefined,
      contextExhausted: false,
      queuedRules: new Map(),
    };
    const result = this.run(text, state, images).finally(() => {
      state.channel.close();
      state.trace.close();
      this.control = undefined;
      this.runResult = undefined;
    });
    this.runResult = result;
    return { events: state.channel, result };
  }

  /**
   * Ends the running prompt at once: no further turn, the partial answer is persisted with
   * stop reason `aborted`, and the result fails with reason `aborted`.
   */
  abort(): void {
    this.control?.end("aborted");
  }

  /**
   * Compacts the session now with the serving model: the older conversation is replaced in
   * the context by a summary (focused by `customInstructions`), the newest part is kept.
   * Nothing is deleted; moving the leaf to the entry before the compaction undoes it.
   * @returns what happened; a failed summary is `{ status: "failed", error }`
   * @throws TypeError while a prompt is running
   */
  async compact(
    customInstructions?: string,
    signal?: AbortSignal,
  ): Promise<AgentCompactionOutcome> {
    if (this.control) throw new TypeError("cannot compact while a prompt is running");
    await this.appendChain;
    return this.compaction.compact(this.model, "manual", {
      ...(customInstructions !== undefined ? { customInstructions } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  /**
   * Compacts before a request when the context passed the threshold.
   * @returns whether a compaction was tried (at most once per turn)
   */
  private async compactIfNeeded(
    turnIndex: number,
    target: ModelTarget,
    state: RunState,
  ): Promise<boolean> {
    if (!this.compaction.needsCompaction(target.model)) return false;
    await this.appendChain;
    const outcome = await this.compaction.compact(target.model, "threshold", {
      signal: state.signal,
    });
    if (outcome.status === "compacted") accountUsage(state, target, outcome.usage);
    state.channel.push(compactionEvent(outcome, turnIndex));
    return true;
  }

  /**
   * Asks the running prompt to finish gracefully: waits (backoff, running tools) are cut
   * short, tool calls not yet run get an error result, and one final turn is forced in which
   * the model gets no tools (only the final-report tool when an output schema is set). An
   * answer that was streaming goes on. The run counts as a success once the final answer
   * is in.
   */
  stop(): void {
    this.control?.stop();
  }

  /**
   * Ends the running prompt at once like {@link abort} (its result fails with reason
   * `shutdown`), waits for it and for pending appends, then closes what the agent owns:
   * `resources`, and `session` when `ownsSession` is set. Idempotent; a later `prompt()`
   * throws.
   */
  async shutdown(): Promise<void> {
    if (this.shutDown) return;
    this.shutDown = true;
    this.control?.end("shutdown");
    await this.runResult?.catch(() => undefined);
    await this.appendChain;
    // Extensions hear of it while the session is still open (they may store their state).
    await this.extensionControls?.shutdown();
    const closing = (this.options.resources ?? []).map(async (resource) => resource.close());
    if (this.toolOutputStore) closing.push(this.toolOutputStore.dispose());
    if (this.sessionOwned) closing.push(this.session.close());
    const failures = (await Promise.allSettled(closing)).flatMap((outcome) =>
      outcome.status === "rejected" ? [outcome.reason] : [],
    );
    if (failures.length > 0) {
      throw new AggregateError(failures, `${failures.length} resource(s) failed to close`);
    }
  }

  /** The model the next request goes to. */
  get model(): Model {
    return (this.pool.current() ?? this.options.targets[0])?.model as Model;
  }

  /** The thinking level on the session's current path (`off` unless changed). */
  get thinkingLevel(): string {
    return this.session.buildSessionContext().thinkingLevel;
  }

  /**
   * Sends the following requests to `model`: a target with that model (or the same
   * provider and id) becomes the current one, or the model is added as a target. Stored as
   * a `model_change` entry, so a resumed session picks the same model.
   * @returns the id of the `model_change` entry
   * @throws TypeError while a prompt runs
   */
  async setModel(model: Model): Promise<string> {
    this.assertIdle("setModel");
    const previous = this.pool.current()?.model.info;
    this.pool.select(model);
    const entryId = await this.session.appendModelChange(model.info.provider, model.info.id);
    await this.extensionHooks?.selectModel(
      { provider: model.info.provider, modelId: model.info.id },
      previous ? { provider: previous.provider, modelId: previous.id } : null,
      "set",
    );
    return entryId;
  }

  /**
   * Sets how hard the model reasons in the following requests (sent as `reasoning`), stored
   * as a `thinking_level_change` entry on the path.
   * @returns the id of the `thinking_level_change` entry
   * @throws TypeError while a prompt runs; RangeError for an unknown level
   */
  async setThinkingLevel(level: ReasoningLevel): Promise<string> {
    this.assertIdle("setThinkingLevel");
    if (!REASONING_LEVELS.includes(level)) {
      throw new RangeError(
        `unknown thinking level "${level}"; use one of ${REASONING_LEVELS.join(", ")}`,
      );
    }
    return this.session.appendThinkingLevelChange(level);
  }

  /**
   * Moves the session's leaf to `targetId` (`null`: before the first entry), so the next
   * prompt continues from there. With `summarize`, the branch left is first summarized by
   * the `summarizeBranch` option into a `branch_summary` entry, which becomes the leaf.
   * @throws TypeError while a prompt runs, or `summarize` without `summarizeBranch`
   * @throws RangeError when the entry does not exist
   */
  async navigateTree(
    targetId: string | null,
    options: NavigateTreeOptions = {},
  ): Promise<TreeNavigation> {
    this.assertIdle("navigateTree");
    const input = { ...options, summarizeBranch: this.options.summarizeBranch, model: this.model };
    const navigation = this.extensionControls
      ? await navigateAgentTree(this.extensionControls, this.session, targetId, input)
      : await moveLeaf(this.session, targetId, input);
    this.followChosenModel();
    return navigation;
  }

  /**
   * Copies the path from the root to `entryId` into a new session (`Session.fork`: beside a
   * session file, or into `storage`) and continues in it: later prompts persist there. The
   * agent owns the fork and closes it on `shutdown()` (or on the next fork).
   * @returns the new session
   * @throws TypeError while a prompt runs
   */
  async fork(entryId: string, options: { storage?: SessionStorage } = {}): Promise<Session> {
    this.assertIdle("fork");
    const previous = this.session;
    const forked = await previous.fork(entryId, options);
    this.options = { ...this.options, session: forked };
    if (this.sessionOwned) await previous.close();
    this.sessionOwned = true;
    this.followChosenModel();
    await this.extensionControls?.start("fork", previous.id);
    return forked;
  }

  private assertIdle(method: string): void {
    if (this.shutDown) throw new TypeError(`${method}(): the agent was shut down`);
    if (this.control) throw new TypeError(`${method}() cannot run while a prompt runs`);
  }

  /** Makes the model chosen last on the path (a `model_change`) the current target. */
  private followChosenModel(): void {
    const chosen = chosenModel(this.session);
    if (chosen) this.pool.selectByName(chosen.provider, chosen.modelId);
  }

  /**
   * The `reasoning` of a request: the path's thinking level, sent when it is not `off` or
   * when a `thinking_level_change` on the path set it explicitly.
   */
  private reasoning(thinkingLevel: string): { reasoning?: ReasoningLevel } {
    const level = REASONING_LEVELS.find((known) => known === thinkingLevel);
    if (level === undefined) return {};
    if (level !== "off") return { reasoning: level };
    const explicit = this.session
      .getBranch()
      .some((entry) => isEntryOfType(entry, "thinking_level_change"));
    return explicit ? { reasoning: level } : {};
  }

  /** Appends a message after every earlier append of this agent, so entries keep their order. */
  private append(message: AgentMessage): Promise<string> {
    const next = this.appendChain.then(() => this.session.appendMessage(message));
    this.appendChain = next.catch(() => undefined);
    return next;
  }

  private reminderContext(): RuleReminderContext | undefined {
    const { ttsr } = this.options;
    if (!ttsr) return undefined;
    return {
      session: this.session,
      ttsr,
      projectRoot: this.options.projectRoot,
      appendMessage: (message) => this.append(message),
      now: this.now,
    };
  }

  private createExtensionHooks(options: AgentSessionOptions): ExtensionHooks | undefined {
    if (!options.extensions) return undefined;
    const agent = this;
    return new ExtensionHooks(options.extensions, {
      get session() {
        return agent.session;
      },
      tools: this.tools,
      get model() {
        return agent.model;
      },
      get running() {
        return agent.running;
      },
      continueRun: () => this.startRun(undefined),
      appendMessage: (message) => this.append(message),
      now: () => this.now(),
    });
  }

  private async run(
    text: string | undefined,
    state: RunState,
    images?: readonly ImagePart[],
  ): Promise<AgentResult> {
    let turns = 0;
    await state.trace.begin({
      "arbor.session.id": this.session.id,
      "arbor.session.file": this.session.location,
    });
    const finish = (reason?: AgentFailureReason, message?: string): AgentResult => {
      const result: AgentResult = {
        success: reason === undefined,
        finalReport:
          reason === undefined
            ? (state.finalReport ?? { status: "delivered", value: undefined, repaired: false })
            : failedReport(reason, message),
        ...(reason !== undefined ? { reason } : {}),
        ...(message !== undefined ? { message } : {}),
        turns,
        usage: state.usage,
        cost: state.cost,
        sessionFile: this.session.location,
      };
      state.channel.push({ type: "agent_end", result });
      return result;
    };
    const hooks = this.extensionHooks;
    await hooks?.startRun(text, this.options.systemPrompt, state.signal, images);
    if (text !== undefined) {
      const message: AgentMessage = {
        role: "user",
        content: userMessageContent(text, images),
        timestamp: this.now(),
      };
      await (hooks ? hooks.persistMessage(message) : this.append(message));
    }
    const maxTurns = this.options.maxTurns ?? 20;
    while (true) {
      if (state.control.ended) return finish(state.control.ended);
      // A stop asked for on the last allowed turn still gets its final turn.
      if (turns >= maxTurns && !(state.control.stopRequested && state.finalTurn === undefined)) {
        return finish("max_turns", `stopped after ${maxTurns} turns`);
      }
      const turnIndex = turns++;
      state.channel.push({ type: "turn_start", turnIndex });
      await hooks?.turnStart(turnIndex);
      const answer = await this.answer(turnIndex, state);
      if (!answer.ok) {
        state.channel.push({ type: "turn_end", turnIndex });
        await hooks?.turnEnd(turnIndex);
        return finish(answer.reason, answer.message);
      }
      if (answer.report || answer.toolCalls.length === 0)
        await this.recordFinalAnswer(answer, state);
      if (answer.toolCalls.length > 0) {
        const outputBudget = this.contextGuard.toolBudget(this.promptEstimate(), this.model);
        const batch = await runToolCalls(
          {
            turnIndex,
            calls: answer.toolCalls,
            tools: this.tools,
            timeoutMs: this.options.toolTimeoutMs ?? 120_000,
            appendMessage: (message) => this.append(message),
            flushAppends: () => this.appendChain,
            outputBudget,
            now: this.now,
            extensions: hooks,
          },
          state,
        );
        if (outputBudget.exceeded) state.contextExhausted = true;
        if (batch === "ended") {
          state.channel.push({ type: "turn_end", turnIndex });
          await hooks?.turnEnd(turnIndex);
          return finish(state.control.ended ?? "aborted");
        }
      }
      const reminders = this.reminderContext();
      if (reminders) await injectQueuedRules(reminders, turnIndex, state);
      state.channel.push({ type: "turn_end", turnIndex });
      this.options.ttsr?.onTurnEnd();
      await hooks?.turnEnd(turnIndex);
      // Messages extensions queued for after the turn keep the run going, so the model answers them.
      const delivered = (await hooks?.deliverAfterTurn(answer.toolCalls.length > 0)) ?? false;
      if ((answer.toolCalls.length === 0 && !delivered) || answer.finalTurn) {
        await this.titleAfterExchange(state);
        return finish();
      }
    }
  }

  /** Generates the session's title after its first exchange (when asked to); never throws. */
  private async titleAfterExchange(state: RunState): Promise<void> {
    const titled = await this.compaction.titleAfterExchange(this.model, state.signal);
    if (!titled) return;
    state.channel.push({
      type: "title",
      title: titled.error === undefined ? titled.title : undefined,
      ...(titled.error !== undefined ? { error: String(titled.error) } : {}),
    });
  }

  /** Gets one answer for a turn, retrying and failing over as the errors say. */
  private async answer(turnIndex: number, state: RunState): Promise<TurnAnswer> {
    let failures = 0;
    let rejections = 0;
    let overflowCompacted = false;
    let thresholdCompacted = false;
    while (true) {
      const target = this.pool.current();
      if (!target) return { ok: false, reason: "no_targets", message: "every target was dropped" };
      if (!thresholdCompacted) {
        thresholdCompacted = await this.compactIfNeeded(turnIndex, target, state);
        if (state.control.ended) return { ok: false, reason: state.control.ended };
      }
      if (state.control.stopRequested) await this.announceFinalTurn(turnIndex, "stop", state);
      if (await this.guardContext(turnIndex, target, state)) continue;
      const finalTurn = state.finalTurn !== undefined;
      const attemptSpan = state.trace.startAttempt(turnIndex, target);
      const outcome = await streamAttempt(
        {
          turnIndex,
          target,
          request: (signal) => this.request(signal, finalTurn, turnIndex, target),
          onStreamEvent: this.extensionHooks?.streamEvent.bind(this.extensionHooks),
          ttsr: this.options.ttsr,
        },
        state,
      );
      accountUsage(state, target, outcome.usage);
      attemptSpan.end(attemptOutcome(outcome));

      if (outcome.kind === "done") {
        this.pool.markServed(target);
        const message = assistantMessage(
          target,
          outcome.content,
          outcome.stopReason,
          outcome.usage,
          this.now(),
        );
        const entryId = await this.append(message);
        await this.extensionHooks?.assistantStored(message, entryId);
        state.channel.push({
          type: "message_end",
          turnIndex,
          entryId,
          target: targetRef(target),
          stopReason: outcome.stopReason,
        });
        const review = reviewAnswer({
          content: outcome.content,
          stopReason: outcome.stopReason,
          finalTurn,
          contract: this.reportContract,
        });
        if (review.accepted) {
          const { toolCalls, skippedCalls, text, report } = review;
          return {
            ok: true,
            toolCalls,
            skippedCalls,
            finalTurn,
            entryId,
            text,
            ...(report ? { report } : {}),
          };
        }
        rejections++;
        const rejected = await this.rejectAnswer(
          turnIndex,
          entryId,
          review.problems,
          rejections,
          state,
        );
        if (rejected) return rejected;
        continue;
      }
      if (outcome.kind === "aborted" || (outcome.kind === "error" && state.signal.aborted)) {
        await this.append(
          assistantMessage(target, outcome.content, "aborted", outcome.usage, this.now()),
        );
        return { ok: false, reason: state.control.ended ?? "aborted" };
      }
      if (outcome.kind === "interrupt") {
        const reminders = this.reminderContext();
        if (reminders) await persistInterrupt(reminders, turnIndex, target, outcome, state);
        await this.extensionHooks?.ttsrTriggered(turnIndex, outcome.matches);
        continue;
      }

      const { error } = outcome;
      if (error.kind === "context_overflow") {
        // A target with a bigger window takes the same context without losing any of it.
        const bigger = this.contextGuard.biggerWindow(target, this.pool.targets);
        if (bigger) {
          failures++;
          this.pool.select(bigger.model);
          const switched = { action: "next_target" as const, delayMs: 0 };
          const failed = await this.recordFailedAttempt(
            turnIndex,
            failures,
            target,
            outcome,
            switched,
            state,
          );
          if (failed) return failed;
          continue;
        }
        // Else compact once and retry the same turn; its user message and tool results stay.
        // The attempt is recorded once the compaction has decided what it led to.
        failures++;
        let compacted = false;
        if (!overflowCompacted && this.compaction.settings.enabled) {
          overflowCompacted = true;
          await this.appendChain;
          const compaction = await this.compaction.compact(target.model, "overflow", {
            signal: state.signal,
          });
          if (compaction.status === "compacted") {
            compacted = true;
            accountUsage(state, target, compaction.usage);
          }
          state.channel.push(compactionEvent(compaction, turnIndex));
          if (state.control.ended) return { ok: false, reason: state.control.ended };
        }
        await this.recordAttempt(turnIndex, failures, target, outcome, {
          action: compacted ? "compact" : "give_up",
          delayMs: 0,
        });
        if (compacted) continue;
        return { ok: false, reason: "context_overflow", message: error.message };
      }
      failures++;
      const decision = applyFailover(this.pool, target, error, failures, this.options);
      const failed = await this.recordFailedAttempt(
        turnIndex,
        failures,
        target,
        outcome,
        decision,
        state,
      );
      if (failed) return failed;
      if (decision.delayMs > 0) await this.sleep(decision.delayMs, state.control.waitSignal);
      if (state.control.ended) return { ok: false, reason: state.control.ended };
    }
  }

  /**
   * Stores a failed attempt as an `arbor.failover` entry: which target failed and how, what
   * failover did, the next target (none when it gave up), the attempt's priced usage.
   */
  private async recordAttempt(
    turnIndex: number,
    attempt: number,
    target: ModelTarget,
    outcome: Extract<AttemptOutcome, { kind: "error" }>,
    decision: FailoverDecision,
  ): Promise<void> {
    const { error } = outcome;
    const next = decision.action === "give_up" ? undefined : this.pool.current();
    await this.session.appendCustomEntry(FAILOVER_CUSTOM_TYPE, {
      turn: turnIndex,
      attempt,
      ...targetRef(target),
      kind: error.kind,
      message: error.message,
      action: decision.action,
      delayMs: decision.delayMs,
      next: next ? targetRef(next) : null,
      usage: usageRecord(outcome.usage, target.model.info.pricing),
    });
  }

  /**
   * Records a failed attempt that failover moved on from ({@link recordAttempt}) and emits a
   * `retry` event.
   * @returns the failure when no target or no retry is left, else undefined (try again)
   */
  private async recordFailedAttempt(
    turnIndex: number,
    attempt: number,
    target: ModelTarget,
    outcome: Extract<AttemptOutcome, { kind: "error" }>,
    decision: FailoverDecision,
    state: RunState,
  ): Promise<TurnAnswer | undefined> {
    const { error } = outcome;
    await this.recordAttempt(turnIndex, attempt, target, outcome, decision);
    state.channel.push({
      type: "retry",
      turnIndex,
      attempt,
      kind: error.kind,
      message: error.message,
      target: targetRef(target),
      action: decision.action,
      delayMs: decision.delayMs,
    });
    if (this.pool.size === 0) {
      return { ok: false, reason: "no_targets", message: `last error: ${error.message}` };
    }
    if (attempt > (this.options.maxRetries ?? 3)) {
      return { ok: false, reason: "retries_exhausted", message: `last error: ${error.message}` };
    }
    return undefined;
  }

  /** The estimated prompt tokens of the next request to the current session path. */
  private promptEstimate(): number {
    const tools = toolDefinitions([...this.tools.values()]);
    if (this.reportContract) tools.push(this.reportContract.definition);
    return this.contextGuard.estimate(this.session, this.options.systemPrompt, tools);
  }

  /**
   * Runs the context guard before a request: over the limit, it moves to a target whose
   * window takes the prompt, or forces the final turn (also after a tool output was
   * dropped), recording what it did as an `arbor.context-guard` entry.
   * @returns true when it moved to another target (the caller starts the attempt again)
   */
  private async guardContext(
    turnIndex: number,
    target: ModelTarget,
    state: RunState,
  ): Promise<boolean> {
    if (!this.contextGuard.enabled) return false;
    await this.appendChain;
    const estimate = this.promptEstimate();
    const verdict = state.contextExhausted
      ? {
          action: "force_final" as const,
          estimate,
          limit: this.contextGuard.limitFor(target.model),
        }
      : this.contextGuard.check(estimate, target, this.pool.targets);
    if (verdict.action === "send") return false;
    if (verdict.action === "force_final" && state.finalTurn !== undefined) return false;
    const next = verdict.action === "switch_target" ? verdict.target : target;
    await this.session.appendCustomEntry(CONTEXT_GUARD_CUSTOM_TYPE, {
      turn: turnIndex,
      action: verdict.action,
      estimate: verdict.estimate,
      limit: verdict.limit,
      from: targetRef(target),
      to: targetRef(next),
    });
    state.channel.push({
      type: "context_guard",
      turnIndex,
      action: verdict.action,
      estimate: verdict.estimate,
      limit: verdict.limit,
      target: targetRef(next),
    });
    if (verdict.action === "switch_target") {
      this.pool.select(verdict.target.model);
      return true;
    }
    await this.announceFinalTurn(turnIndex, "context_limit", state);
    return false;
  }

  /**
   * Handles an answer that was not accepted: when retries are left it is moved off the path
   * and one hidden feedback message is appended, and the turn is retried.
   * @returns the failure once retries are exhausted, else undefined (retry)
   */
  private async rejectAnswer(
    turnIndex: number,
    entryId: string,
    problems: AnswerProblem[],
    attempt: number,
    state: RunState,
  ): Promise<TurnAnswer | undefined> {
    const reportTool = this.reportContract?.toolName;
    const kinds = problems.map((problem) => problem.kind);
    if (attempt > (this.options.maxAnswerRetries ?? 2)) {
      state.channel.push({ type: "answer_rejected", turnIndex, attempt, problems: kinds, entryId });
      const first = problems[0] as AnswerProblem;
      return {
        ok: false,
        reason: failureReasonOf(first),
        message: feedbackText(problems, reportTool),
      };
    }
    await this.appendChain;
    const feedbackEntryId = await persistRejection(this.session, entryId, problems, reportTool);
    state.channel.push({
      type: "answer_rejected",
      turnIndex,
      attempt,
      problems: kinds,
      entryId,
      feedbackEntryId,
    });
    return undefined;
  }

  /**
   * Stores what ends a run: a delivered report is acknowledged with a `toolResult` (calls
   * made beside it get an error result, never run); a text answer becomes the report.
   */
  private async recordFinalAnswer(
    answer: Extract<TurnAnswer, { ok: true }>,
    state: RunState,
  ): Promise<void> {
    const { report } = answer;
    if (!report) {
      state.finalReport = {
        status: "delivered",
        value: answer.text,
        repaired: false,
        entryId: answer.entryId,
      };
      return;
    }
    if (report.toolCallId !== undefined) {
      await this.append({
        role: "toolResult",
        toolCallId: report.toolCallId,
        toolName: FINAL_REPORT_TOOL_NAME,
        content: [{ type: "text", text: "Final report received." }],
        isError: false,
        details: { repaired: report.repaired },
        timestamp: this.now(),
      });
    }
    for (const call of answer.skippedCalls) {
      await this.append({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: "Not run: the final report ended the task." }],
        isError: true,
        timestamp: this.now(),
      });
    }
    state.finalReport = {
      status: "delivered",
      value: report.value,
      repaired: report.repaired,
      entryId: answer.entryId,
    };
  }

  /**
   * Opens the forced final turn once per run: a hidden instruction is appended (so the
   * context of the final request is in the session) and `final_turn` is emitted.
   */
  private async announceFinalTurn(
    turnIndex: number,
    reason: FinalTurnReason,
    state: RunState,
  ): Promise<void> {
    if (state.finalTurn !== undefined) return;
    state.finalTurn = reason;
    await this.appendChain;
    await this.session.appendCustomMessageEntry(
      FINAL_TURN_CUSTOM_TYPE,
      finalTurnInstruction(reason, this.reportContract?.toolName),
      false,
      { reason },
    );
    state.channel.push({ type: "final_turn", turnIndex, reason });
  }

  /**
   * The request of one attempt; a final turn offers no tools. Extensions may replace the
   * messages (`context`) and the system prompt (for the prompt), add their tools, and see
   * the request before it goes out.
   */
  private async request(
    signal: AbortSignal,
    finalTurn: boolean,
    turnIndex: number,
    target: ModelTarget,
  ): Promise<ModelRequest> {
    const hooks = this.extensionHooks;
    const context = this.session.buildSessionContext();
    const messages = hooks ? await hooks.context(context.messages) : context.messages;
    const reportTools = this.reportContract ? [this.reportContract.definition] : [];
    const tools = finalTurn
      ? reportTools
      : [
          ...toolDefinitions([...this.tools.values()]),
          ...(hooks?.toolDefinitions() ?? []),
          ...reportTools,
        ];
    const systemPrompt = hooks ? hooks.systemPrompt : this.options.systemPrompt;
    const request: ModelRequest = {
      ...(systemPrompt !== undefined ? { system: systemPrompt } : {}),
      messages: toModelMessages(messages),
      ...(tools.length > 0 ? { tools } : {}),
      ...(this.options.maxOutputTokens !== undefined
        ? { maxOutputTokens: this.options.maxOutputTokens }
        : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      ...this.reasoning(context.thinkingLevel),
      signal,
    };
    await hooks?.beforeProviderRequest(target, turnIndex, request);
    return request;
  }
}

export type { AgentSessionOptions } from "./agent-session-options.js";
