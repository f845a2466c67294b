import {
  type AssistantMessage,
  costOf,
  type ModelErrorEvent,
  type ModelRequest,
  type Usage,
} from "@arbor/providers";
import { type AgentMessage, isEntryOfType, type Session } from "@arbor/session-store";
import {
  type ResolvedTtsrRule,
  renderInterrupt,
  type TtsrManager,
  type TtsrMatch,
  type TtsrSource,
} from "@arbor/ttsr";
import type {
  AgentEvent,
  AgentFailureReason,
  AgentResult,
  AgentRun,
  FailoverAction,
  TargetRef,
} from "./agent-events.js";
import { type AgentTool, runToolCall, toolDefinitions } from "./agent-tool.js";
import { AnswerBuilder } from "./answer-builder.js";
import { toModelMessages } from "./context-messages.js";
import { EventChannel } from "./event-channel.js";
import { type ModelTarget, TargetPool } from "./target-pool.js";

/** The `customType` of the entry recording a failed attempt and what failover did. */
export const FAILOVER_CUSTOM_TYPE = "arbor.failover";
/** The `customType` of the hidden message carrying a stream rule's reminder. */
export const TTSR_INTERRUPT_CUSTOM_TYPE = "ttsr-interrupt";

/** Options of {@link AgentSession}. */
export interface AgentSessionOptions {
  /** Provider/model pairs, tried round-robin; at least one. */
  targets: readonly ModelTarget[];
  /** Where every step is persisted; the context of each turn is rebuilt from it. */
  session: Session;
  tools?: readonly AgentTool[];
  systemPrompt?: string;
  /** Stream rules: every delta is checked, and a match interrupts and retries the turn. */
  ttsr?: TtsrManager;
  /**
   * Restore the `ttsr_injection` records of the session into `ttsr` (and set its turn to
   * the turns already answered), so the repeat policy and budgets continue across a
   * reload. Pass false when the manager was restored already. Default true.
   */
  restoreInjectedRules?: boolean;
  /** Rule paths in interrupt reminders are shown relative to this directory. */
  projectRoot?: string;
  /** Turns per prompt before the run fails with `max_turns`. Default 20. */
  maxTurns?: number;
  /** Failed attempts per turn retried before the run fails. Default 3. */
  maxRetries?: number;
  /** Default timeout of a tool call, overridable per tool. Default 120 s. */
  toolTimeoutMs?: number;
  /** First backoff delay, doubled per failed attempt. Default 1 s. */
  retryDelayMs?: number;
  /** Upper bound of any wait, including a provider's `retryAfterMs`. Default 60 s. */
  maxRetryDelayMs?: number;
  maxOutputTokens?: number;
  temperature?: number;
  /** Clock seam, in epoch milliseconds. */
  now?: () => number;
  /** Wait seam; it must resolve early when the signal fires. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

type AttemptOutcome =
  | { kind: "done"; content: AssistantMessage["content"]; stopReason: string; usage: Usage }
  | {
      kind: "error";
      error: ModelErrorEvent;
      content: AssistantMessage["content"];
      usage: Usage;
    }
  | { kind: "aborted"; content: AssistantMessage["content"]; usage: Usage }
  | { kind: "interrupt"; matches: TtsrMatch[]; content: AssistantMessage["content"]; usage: Usage };

type TurnAnswer =
  | { ok: true; toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }> }
  | { ok: false; reason: AgentFailureReason; message?: string };

interface RunState {
  channel: EventChannel<AgentEvent>;
  signal: AbortSignal;
  usage: Usage;
  cost: number;
  /** Matched rules with `interruptMode: "never"`, injected at the end of the turn. */
  queuedRules: Map<string, ResolvedTtsrRule>;
}

const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
const ABORTED = Symbol("aborted");

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function abortedPromise(signal: AbortSignal): Promise<typeof ABORTED> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(ABORTED);
    else signal.addEventListener("abort", () => resolve(ABORTED), { once: true });
  });
}

/**
 * Feeds a session's injection records into a fresh manager. Every turn that ended stored
 * exactly one answer that was not aborted, so counting those gives the current turn.
 */
function restoreTtsr(ttsr: TtsrManager, session: Session): void {
  const records: unknown[] = [];
  let turn = 0;
  for (const entry of session.getEntries()) {
    if (isEntryOfType(entry, "ttsr_injection")) records.push(...entry.injectedRules);
    else if (isEntryOfType(entry, "message")) {
      const { message } = entry;
      if (message.role === "assistant" && message.stopReason !== "aborted") turn++;
    }
  }
  if (records.length > 0 || turn > 0) ttsr.restoreInjected(records, { turn });
}

const targetRef = (target: ModelTarget): TargetRef => ({
  provider: target.model.info.provider,
  model: target.model.info.id,
});

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
  private readonly options: AgentSessionOptions;
  private readonly pool: TargetPool;
  private readonly tools = new Map<string, AgentTool>();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  private controller: AbortController | undefined;
  private appendChain: Promise<unknown> = Promise.resolve();

  constructor(options: AgentSessionOptions) {
    if (options.targets.length === 0) {
      throw new TypeError("AgentSession needs at least one model target in `targets`");
    }
    this.options = options;
    this.pool = new TargetPool(options.targets);
    for (const tool of options.tools ?? []) {
      if (this.tools.has(tool.name)) {
        throw new TypeError(`two tools are named "${tool.name}"; tool names must be unique`);
      }
      this.tools.set(tool.name, tool);
    }
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? defaultSleep;
    if (options.ttsr && (options.restoreInjectedRules ?? true)) {
      restoreTtsr(options.ttsr, options.session);
    }
  }

  /** The session this agent persists into. */
  get session(): Session {
    return this.options.session;
  }

  /** Whether a prompt is running. */
  get running(): boolean {
    return this.controller !== undefined;
  }

  /**
   * Sends a user message and runs turns until the model answers without tool calls, a
   * limit is hit or the run is aborted. The result always resolves; it rejects only when a
   * model or the storage breaks its contract (a model that throws, a failed append).
   * @throws TypeError when a prompt is already running
   */
  prompt(text: string): AgentRun {
    if (this.controller) {
      throw new TypeError("a prompt is already running; await its result or abort() it first");
    }
    const controller = new AbortController();
    this.controller = controller;
    const state: RunState = {
      channel: new EventChannel<AgentEvent>(),
      signal: controller.signal,
      usage: { ...ZERO_USAGE },
      cost: 0,
      queuedRules: new Map(),
    };
    const result = this.run(text, state).finally(() => {
      state.channel.close();
      this.controller = undefined;
    });
    return { events: state.channel, result };
  }

  /** Ends the running prompt at once: no further turn, the partial answer is persisted. */
  abort(): void {
    this.controller?.abort();
  }

  private append(message: AgentMessage): Promise<string> {
    const next = this.appendChain.then(() => this.session.appendMessage(message));
    this.appendChain = next.catch(() => undefined);
    return next;
  }

  private async run(text: string, state: RunState): Promise<AgentResult> {
    let turns = 0;
    const finish = (reason?: AgentFailureReason, message?: string): AgentResult => {
      const result: AgentResult = {
        success: reason === undefined,
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
    await this.append({ role: "user", content: text, timestamp: this.now() });
    const maxTurns = this.options.maxTurns ?? 20;
    while (true) {
      if (state.signal.aborted) return finish("aborted");
      if (turns >= maxTurns) return finish("max_turns", `stopped after ${maxTurns} turns`);
      const turn = turns++;
      state.channel.push({ type: "turn_start", turn });
      const answer = await this.answer(turn, state);
      if (!answer.ok) {
        state.channel.push({ type: "turn_end", turn });
        return finish(answer.reason, answer.message);
      }
      if (answer.toolCalls.length > 0) {
        const finished = await this.runTools(turn, answer.toolCalls, state);
        if (!finished) {
          state.channel.push({ type: "turn_end", turn });
          return finish("aborted");
        }
      }
      await this.injectQueued(turn, state);
      state.channel.push({ type: "turn_end", turn });
      this.options.ttsr?.onTurnEnd();
      if (answer.toolCalls.length === 0) return finish();
    }
  }

  /** Runs the calls in parallel, persisting each result as it finishes. */
  private async runTools(
    turn: number,
    calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>,
    state: RunState,
  ): Promise<boolean> {
    const timeoutMs = this.options.toolTimeoutMs ?? 120_000;
    const all = Promise.all(
      calls.map(async (call) => {
        const outcome = await runToolCall(this.tools.get(call.name), call, {
          signal: state.signal,
          timeoutMs,
        });
        if (state.signal.aborted) return;
        const entryId = await this.append({
          role: "toolResult",
          toolCallId: call.id,
          toolName: call.name,
          content: outcome.content,
          isError: outcome.isError,
          timestamp: this.now(),
        });
        state.channel.push({
          type: "tool_result",
          turn,
          entryId,
          toolCallId: call.id,
          toolName: call.name,
          isError: outcome.isError,
        });
      }),
    );
    const settled = await Promise.race([all, abortedPromise(state.signal)]);
    if (settled === ABORTED) return false;
    await this.appendChain;
    return !state.signal.aborted;
  }

  /** Gets one answer for a turn, retrying and failing over as the errors say. */
  private async answer(turn: number, state: RunState): Promise<TurnAnswer> {
    const maxRetries = this.options.maxRetries ?? 3;
    let failures = 0;
    while (true) {
      const target = this.pool.current();
      if (!target) return { ok: false, reason: "no_targets", message: "every target was dropped" };
      const outcome = await this.attempt(turn, target, state);
      this.account(target, outcome.usage, state);

      if (outcome.kind === "done") {
        this.pool.markServed(target);
        const entryId = await this.append(
          this.assistantMessage(target, outcome.content, outcome.stopReason, outcome.usage),
        );
        state.channel.push({
          type: "message_end",
          turn,
          entryId,
          target: targetRef(target),
          stopReason: outcome.stopReason,
        });
        return {
          ok: true,
          toolCalls: outcome.content.flatMap((part) => (part.type === "toolCall" ? [part] : [])),
        };
      }
      if (outcome.kind === "aborted" || (outcome.kind === "error" && state.signal.aborted)) {
        await this.append(this.assistantMessage(target, outcome.content, "aborted", outcome.usage));
        return { ok: false, reason: "aborted" };
      }
      if (outcome.kind === "interrupt") {
        await this.interrupt(turn, target, outcome, state);
        continue;
      }

      const { error } = outcome;
      if (error.kind === "context_overflow") {
        return { ok: false, reason: "context_overflow", message: error.message };
      }
      failures++;
      const { action, delayMs } = this.failover(target, error, failures);
      await this.session.appendCustomEntry(FAILOVER_CUSTOM_TYPE, {
        turn,
        attempt: failures,
        ...targetRef(target),
        kind: error.kind,
        message: error.message,
        action,
        delayMs,
        next: this.pool.current() ? targetRef(this.pool.current() as ModelTarget) : null,
      });
      state.channel.push({
        type: "retry",
        turn,
        attempt: failures,
        kind: error.kind,
        message: error.message,
        target: targetRef(target),
        action,
        delayMs,
      });
      if (this.pool.size === 0) {
        return { ok: false, reason: "no_targets", message: `last error: ${error.message}` };
      }
      if (failures > maxRetries) {
        return { ok: false, reason: "retries_exhausted", message: `last error: ${error.message}` };
      }
      if (delayMs > 0) await this.sleep(delayMs, state.signal);
      if (state.signal.aborted) return { ok: false, reason: "aborted" };
    }
  }

  /** Decides what a failed attempt does to the pool, and how long to wait before the next. */
  private failover(
    target: ModelTarget,
    error: ModelErrorEvent,
    failures: number,
  ): { action: FailoverAction; delayMs: number } {
    const maxDelay = this.options.maxRetryDelayMs ?? 60_000;
    const backoff = Math.min(maxDelay, (this.options.retryDelayMs ?? 1_000) * 2 ** (failures - 1));
    switch (error.kind) {
      case "rate_limit": {
        const everyTargetLimited = this.pool.markRateLimited(target);
        this.pool.advance();
        const wait =
          error.retryAfterMs !== undefined ? Math.min(maxDelay, error.retryAfterMs) : backoff;
        return { action: "next_target", delayMs: everyTargetLimited ? wait : 0 };
      }
      case "auth_error":
      case "quota_exceeded":
        this.pool.drop(target);
        return { action: "drop_target", delayMs: 0 };
      default:
        this.pool.advance();
        return { action: "retry", delayMs: backoff };
    }
  }

  private account(target: ModelTarget, usage: Usage, state: RunState): void {
    state.usage.input += usage.input;
    state.usage.output += usage.output;
    state.usage.cacheRead += usage.cacheRead;
    state.usage.cacheWrite += usage.cacheWrite;
    state.cost += costOf(usage, target.model.info.pricing);
  }

  private assistantMessage(
    target: ModelTarget,
    content: AssistantMessage["content"],
    stopReason: string,
    usage: Usage,
  ): AgentMessage {
    return {
      role: "assistant",
      content,
      stopReason,
      usage,
      api: target.model.info.api,
      provider: target.model.info.provider,
      model: target.model.info.id,
      timestamp: this.now(),
    };
  }

  private request(signal: AbortSignal): ModelRequest {
    const context = this.session.buildSessionContext();
    const tools = toolDefinitions([...this.tools.values()]);
    return {
      ...(this.options.systemPrompt !== undefined ? { system: this.options.systemPrompt } : {}),
      messages: toModelMessages(context.messages),
      ...(tools.length > 0 ? { tools } : {}),
      ...(this.options.maxOutputTokens !== undefined
        ? { maxOutputTokens: this.options.maxOutputTokens }
        : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      signal,
    };
  }

  /** Streams one model call, forwarding deltas and checking them against the stream rules. */
  private async attempt(
    turn: number,
    target: ModelTarget,
    state: RunState,
  ): Promise<AttemptOutcome> {
    const controller = new AbortController();
    const ttsr = this.options.ttsr;
    ttsr?.resetBuffer();
    const builder = new AnswerBuilder();
    let usage: Usage = { ...ZERO_USAGE };
    const stopped = abortedPromise(controller.signal);
    // A model that throws here breaks its contract; the run's result rejects with the error.
    const iterator = target.model.stream(this.request(controller.signal))[Symbol.asyncIterator]();
    const onAbort = () => controller.abort();
    state.signal.addEventListener("abort", onAbort, { once: true });
    const cut = () => {
      controller.abort();
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    };
    try {
      while (true) {
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === ABORTED) {
          cut();
          return { kind: "aborted", content: builder.content(), usage };
        }
        if (next.done) {
          return {
            kind: "error",
            error: {
              type: "error",
              kind: "network_error",
              message: "the stream ended without a final event",
            },
            content: builder.content(),
            usage,
          };
        }
        const event = next.value;
        builder.apply(event);
        let matches: TtsrMatch[] = [];
        switch (event.type) {
          case "text_delta":
            state.channel.push({
              type: "text_delta",
              turn,
              index: event.index,
              delta: event.delta,
            });
            if (ttsr) matches = ttsr.checkDelta(event.delta, { kind: "text" });
            break;
          case "thinking_delta":
            state.channel.push({
              type: "thinking_delta",
              turn,
              index: event.index,
              delta: event.delta,
            });
            if (ttsr) matches = ttsr.checkDelta(event.delta, { kind: "thinking" });
            break;
          case "toolcall_delta": {
            const call = builder.openToolCall(event.index) ?? { id: "", name: "" };
            state.channel.push({
              type: "toolcall_delta",
              turn,
              index: event.index,
              toolCallId: call.id,
              toolName: call.name,
              delta: event.delta,
            });
            if (ttsr) matches = ttsr.checkDelta(event.delta, { kind: "tool", ...call });
            break;
          }
          case "text_end":
            if (ttsr) matches = ttsr.checkFinal({ kind: "text" });
            break;
          case "thinking_end":
            if (ttsr) matches = ttsr.checkFinal({ kind: "thinking" });
            break;
          case "toolcall_end": {
            const source: TtsrSource = {
              kind: "tool",
              id: event.toolCall.id,
              name: event.toolCall.name,
            };
            if (ttsr) matches = ttsr.checkFinal(source);
            break;
          }
          case "usage":
            usage = event.usage;
            break;
          case "done":
            return { kind: "done", content: builder.content(), stopReason: event.reason, usage };
          case "error":
            return { kind: "error", error: event, content: builder.content(), usage };
          default:
            break;
        }
        for (const match of matches) {
          if (match.rule.interruptMode === "never")
            state.queuedRules.set(match.rule.name, match.rule);
        }
        const interrupting = matches.filter((match) => match.rule.interruptMode !== "never");
        if (interrupting.length > 0) {
          cut();
          return { kind: "interrupt", matches: interrupting, content: builder.content(), usage };
        }
      }
    } finally {
      state.signal.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Handles a stream rule match: the partial answer is stored as an aborted entry (and
   * left off the path in `discard` mode), the reminder is appended as a hidden message and
   * the injection is recorded, so the retried turn sees the rule.
   */
  private async interrupt(
    turn: number,
    target: ModelTarget,
    outcome: Extract<AttemptOutcome, { kind: "interrupt" }>,
    state: RunState,
  ): Promise<void> {
    const ttsr = this.options.ttsr as TtsrManager;
    const parentId = this.session.getLeafId();
    const partialEntryId = await this.append(
      this.assistantMessage(target, outcome.content, "aborted", outcome.usage),
    );
    const rules = outcome.matches.map((match) => match.rule);
    const contextMode = rules.every((rule) => rule.contextMode === "keep") ? "keep" : "discard";
    if (contextMode === "discard" && parentId !== null) await this.session.branch(parentId);
    const names = rules.map((rule) => rule.name);
    const projectRoot = this.options.projectRoot ?? (this.session.getHeader().cwd || "/");
    await this.session.appendCustomMessageEntry(
      TTSR_INTERRUPT_CUSTOM_TYPE,
      renderInterrupt(rules, { projectRoot }),
      false,
      { rules: names, partialEntryId },
    );
    await this.session.appendTtsrInjection(ttsr.markInjected(names));
    state.channel.push({
      type: "ttsr_triggered",
      turn,
      rules: names,
      contextMode,
      interrupted: true,
      partialEntryId,
    });
  }

  /**
   * Appends the reminder of rules that matched without interrupting (`interruptMode:
   * "never"`) once the turn's answer and tool results are stored, so it never splits a
   * tool call from its result.
   */
  private async injectQueued(turn: number, state: RunState): Promise<void> {
    const ttsr = this.options.ttsr;
    if (!ttsr || state.queuedRules.size === 0) return;
    const rules = [...state.queuedRules.values()];
    state.queuedRules.clear();
    const names = rules.map((rule) => rule.name);
    const projectRoot = this.options.projectRoot ?? (this.session.getHeader().cwd || "/");
    await this.session.appendCustomMessageEntry(
      TTSR_INTERRUPT_CUSTOM_TYPE,
      renderInterrupt(rules, { projectRoot }),
      false,
      { rules: names, interrupted: false },
    );
    await this.session.appendTtsrInjection(ttsr.markInjected(names));
    state.channel.push({
      type: "ttsr_triggered",
      turn,
      rules: names,
      contextMode: "keep",
      interrupted: false,
    });
  }
}
