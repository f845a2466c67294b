import type {
  ExtensionEvent,
  ExtensionEventOutcomeMap,
  ExtensionRunner,
  ImageContent,
  ModelSelectSource,
  StreamDelta,
} from "@arbor/extensions-api";
import type {
  AssistantMessage,
  Model,
  ModelEvent,
  ModelRequest,
  ToolDefinition,
} from "@arbor/providers";
import type { AgentMessage, ModelRef } from "@arbor/session-store";
import type { TtsrMatch } from "@arbor/ttsr";
import type { AgentTool } from "../agent-tool.js";
import { FINAL_META_TOOL_NAME, FinalMetaRun } from "../final-meta.js";
import type { DeliveredFinalReport, RunHooks, StreamListener } from "../run/run-hooks.js";
import type { ModelTarget } from "../target-pool.js";
import type { BranchSummarizer } from "../tree-navigation.js";
import { triggeredRule } from "../triggered-rule.js";
import {
  extensionToolDefinitions,
  type ModelToolCall,
  runToolCallWithExtensions,
  type ToolRunOptions,
  type ToolRunOutcome,
} from "./extension-tool-calls.js";
import { emitIsolated } from "./isolated-emit.js";
import { AgentExtensionHost, type DeliveryAgent } from "./message-delivery.js";

/** What the hooks need from the agent they serve. */
export interface ExtensionAgentPort extends DeliveryAgent {
  /** Appends a message in order with the agent's other appends. */
  appendMessage(message: AgentMessage): Promise<string>;
  /** The agent's own tools; they shadow extension tools of the same name. */
  readonly tools: ReadonlyMap<string, AgentTool>;
  /** The model the next request goes to. */
  readonly model: Model;
  /** The agent's branch summarizer, for `navigateTree(id, { summarize: true })`. */
  readonly summarizeBranch?: BranchSummarizer | undefined;
}

/** What the current turn stored so far, for `turn_end`. */
interface TurnRecord {
  message: AgentMessage | undefined;
  toolResults: AgentMessage[];
}

/**
 * The moments at which `AgentSession` hands control to extensions. Each method is one
 * documented moment (see docs/extensions.md); the agent calls it and honours what it
 * returns. Internal to the turn runner: apps use {@link AgentExtensions}.
 */
export class ExtensionHooks implements RunHooks {
  readonly host: AgentExtensionHost;
  private runSystemPrompt: string | undefined;
  private turn: TurnRecord = { message: undefined, toolResults: [] };
  private assistantStarted = false;
  private lastModel: ModelRef | null = null;
  /** The running prompt's signal, handed to handlers as `ctx.signal`. */
  private runSignal: AbortSignal | undefined;
  private runFinalMeta: FinalMetaRun | undefined;

  constructor(
    readonly runner: ExtensionRunner,
    readonly agent: ExtensionAgentPort,
  ) {
    this.host = new AgentExtensionHost(agent, (message, store) => this.announce(message, store));
    runner.bindHost(this.host);
  }

  /**
   * Starts a run. Messages still waiting (`nextTurn`, and `steer`/`followUp` left over by a
   * run that ended early) are stored first. For a user prompt, `before_agent_start` then
   * runs; the messages its handlers return are stored before the prompt, and a replaced
   * system prompt holds for this run. A run an extension triggered has no prompt.
   */
  async startRun(
    prompt: string | undefined,
    systemPrompt: string | undefined,
    signal?: AbortSignal,
    images?: readonly ImageContent[],
  ): Promise<void> {
    this.runSignal = signal;
    this.runSystemPrompt = systemPrompt;
    // Read per run: an extension may require metadata after the agent was made.
    const required = this.runner.getFinalMetaRequirements();
    this.runFinalMeta = required.length > 0 ? new FinalMetaRun(required) : undefined;
    await this.host.deliver(
      "steer",
      "followUp",
      ...(prompt === undefined ? [] : ["nextTurn" as const]),
    );
    if (prompt === undefined) return;
    const outcome = await this.emit({
      type: "before_agent_start",
      prompt,
      ...(images && images.length > 0 ? { images: images.map((image) => ({ ...image })) } : {}),
      systemPrompt: systemPrompt ?? "",
    });
    if (outcome.systemPrompt !== (systemPrompt ?? "")) this.runSystemPrompt = outcome.systemPrompt;
    for (const message of outcome.messages) await this.host.store({ kind: "custom", message });
  }

  /** The system prompt of the running prompt: the agent's, or the one an extension set. */
  get systemPrompt(): string | undefined {
    return this.runSystemPrompt;
  }

  /** Stores a message the agent makes whole (a user prompt, a tool result), announcing it. */
  persistMessage(message: AgentMessage): Promise<string> {
    return this.announce(message, () => this.agent.appendMessage(message));
  }

  /** `turn_start`, before the turn's first model call. */
  async turnStart(turnIndex: number): Promise<void> {
    this.turn = { message: undefined, toolResults: [] };
    await this.emit({ type: "turn_start", turnIndex, timestamp: this.agent.now() });
  }

  /** `context`: the messages for one model call, possibly replaced for this call only. */
  async context(messages: AgentMessage[]): Promise<AgentMessage[]> {
    if (!this.runner.hasHandlers("context")) return messages;
    const outcome = await this.emit({ type: "context", messages });
    // Unless a handler returned messages, the ones the agent built are sent, whatever a
    // handler did to its copy.
    return outcome.changed ? outcome.messages : messages;
  }

  /** The definitions of the extension tools, after the agent's own. */
  toolDefinitions(): ToolDefinition[] {
    return extensionToolDefinitions(this.runner, this.agent.tools);
  }

  /**
   * Just before a request goes out: `model_select` when failover moved to another model,
   * then `before_provider_request` with the request minus its signal.
   */
  async beforeProviderRequest(
    target: ModelTarget,
    turnIndex: number,
    request: ModelRequest,
  ): Promise<void> {
    this.assistantStarted = false;
    const model = { provider: target.model.info.provider, modelId: target.model.info.id };
    const previous = this.lastModel;
    this.lastModel = model;
    if (previous && (previous.provider !== model.provider || previous.modelId !== model.modelId))
      await this.selectModel(model, previous, "failover");
    const { signal: _signal, ...described } = request;
    await this.emit({
      type: "before_provider_request",
      model,
      turnIndex,
      request: described,
    });
  }

  /** Emits `model_select`, and remembers the model so failover can tell a change. */
  async selectModel(
    model: ModelRef,
    previousModel: ModelRef | null,
    source: ModelSelectSource,
  ): Promise<void> {
    this.lastModel = model;
    await this.emit({ type: "model_select", model, previousModel, source });
  }

  /**
   * One stream event of the assistant's answer: `message_start` on the first, then
   * `message_update` with the answer so far (built only when someone listens).
   */
  async streamEvent(event: ModelEvent, content: () => AssistantMessage["content"]): Promise<void> {
    if (!this.assistantStarted) {
      this.assistantStarted = true;
      await this.emit({ type: "message_start", message: this.partial(content()) });
    }
    if (!this.runner.hasHandlers("message_update")) return;
    const delta = event as unknown as StreamDelta;
    await this.emit({ type: "message_update", message: this.partial(content()), delta });
  }

  /** Every stream event goes to {@link streamEvent}. */
  get streamListener(): StreamListener {
    return (event, content) => this.streamEvent(event, content);
  }

  /** `message_end` for an answer the agent stored. */
  async assistantStored(message: AgentMessage, entryId: string): Promise<void> {
    this.turn.message = message;
    await this.emit({ type: "message_end", message, entryId });
  }

  /**
   * Runs a tool call through `tool_call` and `tool_result`; see {@link runToolCallWithExtensions}.
   * A `final_meta` call made before the final answer is the runner's own: its valid blocks
   * are kept for the run and the model is told what is still missing.
   */
  async runToolCall(call: ModelToolCall, options: ToolRunOptions): Promise<ToolRunOutcome> {
    const meta = this.runFinalMeta;
    if (meta && call.name === FINAL_META_TOOL_NAME) {
      const { text, isError } = meta.acknowledgement(meta.absorb([call]));
      return { content: [{ type: "text", text }], isError };
    }
    return runToolCallWithExtensions(this.runner, call, this.agent.tools, options);
  }

  /** The metadata extensions require beside the running prompt's final report, if any. */
  get finalMeta(): FinalMetaRun | undefined {
    return this.runFinalMeta;
  }

  /** `agent_complete`: once per successful run, with the accepted report and its metadata. */
  async complete(report: DeliveredFinalReport): Promise<void> {
    await this.emit({
      type: "agent_complete",
      report: report.value,
      repaired: report.repaired,
      ...(report.entryId === undefined ? {} : { entryId: report.entryId }),
      meta: report.meta ?? {},
    });
  }

  /** `ttsr_triggered`, once an interrupt is stored and before the turn is retried. */
  async ttsrTriggered(turnIndex: number, matches: readonly TtsrMatch[]): Promise<void> {
    const first = matches[0];
    if (!first) return;
    await this.emit({
      type: "ttsr_triggered",
      turnIndex,
      rules: matches.map(({ rule }) => {
        const { name, path, content, scope } = triggeredRule(rule);
        return { name, ...(path !== undefined ? { path } : {}), content, scope };
      }),
      source: first.source,
    });
  }

  /** `turn_end`, once the turn's answer and tool results are stored (or the turn failed). */
  async turnEnd(turnIndex: number): Promise<void> {
    const { message, toolResults } = this.turn;
    await this.emit({
      type: "turn_end",
      turnIndex,
      message: message ?? { role: "assistant", content: [], stopReason: "error" },
      toolResults,
    });
  }

  /**
   * After `turn_end`: stores the `steer` messages extensions sent during the turn; when
   * the model asked for no tools (the run would end), the `followUp` messages instead.
   * @returns whether messages were stored, so the run goes on for the model to answer them
   */
  async deliverAfterTurn(toolsCalled: boolean): Promise<boolean> {
    const steered = await this.host.deliver("steer");
    if (steered > 0 || toolsCalled) return steered > 0;
    return (await this.host.deliver("followUp")) > 0;
  }

  private async announce(message: AgentMessage, store: () => Promise<string>): Promise<string> {
    await this.emit({ type: "message_start", message });
    const entryId = await store();
    if (message.role === "toolResult") this.turn.toolResults.push(message);
    await this.emit({ type: "message_end", message, entryId });
    return entryId;
  }

  /** Emits with the running prompt's signal, so handlers can stop when it is aborted. */
  private emit<E extends ExtensionEvent>(event: E): Promise<ExtensionEventOutcomeMap[E["type"]]> {
    const signal = this.agent.running ? this.runSignal : undefined;
    return emitIsolated(this.runner, event, signal ? { signal } : {});
  }

  private partial(content: AssistantMessage["content"]): AgentMessage {
    return { role: "assistant", content, timestamp: this.agent.now() };
  }
}
