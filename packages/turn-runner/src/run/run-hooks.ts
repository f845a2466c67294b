import type { ImageContent } from "@arbor/extensions-api";
import type { AssistantMessage, ModelEvent, ModelRequest, ToolDefinition } from "@arbor/providers";
import type { AgentMessage } from "@arbor/session-store";
import type { TtsrMatch } from "@arbor/ttsr";
import { type AgentTool, runToolCall } from "../agent-tool.js";
import type { FinalReport } from "../contracts/index.js";
import type {
  ModelToolCall,
  ToolRunOptions,
  ToolRunOutcome,
} from "../extensions/extension-tool-calls.js";
import type { FinalMetaRun } from "../final-meta.js";
import type { ModelTarget } from "../target-pool.js";

/** Listens to each stream event of an answer, with the answer's content so far (built on demand). */
export type StreamListener = (
  event: ModelEvent,
  content: () => AssistantMessage["content"],
) => Promise<void>;

/**
 * The moments of a run at which the host's extensions take part. A run always has hooks:
 * {@link NoExtensionHooks} without extensions, `ExtensionHooks` with them, so the loop has
 * one path for every effect (one way to store a message, to run a tool call).
 */
export interface RunHooks {
  /** Starts a run: stores waiting messages and, for a prompt, lets extensions prepare it. */
  startRun(
    prompt: string | undefined,
    systemPrompt: string | undefined,
    signal?: AbortSignal,
    images?: readonly ImageContent[],
  ): Promise<void>;
  /** The system prompt of the running prompt. */
  readonly systemPrompt: string | undefined;
  /** Stores a message the agent makes whole (a user prompt, a tool result). */
  persistMessage(message: AgentMessage): Promise<string>;
  /** Before the turn's first model call. */
  turnStart(turnIndex: number): Promise<void>;
  /** The messages for one model call. */
  context(messages: AgentMessage[]): Promise<AgentMessage[]>;
  /** Tool definitions offered beside the agent's own. */
  toolDefinitions(): ToolDefinition[];
  /** Just before a request goes out. */
  beforeProviderRequest(
    target: ModelTarget,
    turnIndex: number,
    request: ModelRequest,
  ): Promise<void>;
  /** Who hears each stream event, or undefined when nobody does (nothing is built per event). */
  readonly streamListener: StreamListener | undefined;
  /** Once an answer is stored. */
  assistantStored(message: AgentMessage, entryId: string): Promise<void>;
  /** Runs one tool call the model asked for. */
  runToolCall(call: ModelToolCall, options: ToolRunOptions): Promise<ToolRunOutcome>;
  /** Once a stream-rule interrupt is stored, before the turn is retried. */
  ttsrTriggered(turnIndex: number, matches: readonly TtsrMatch[]): Promise<void>;
  /** Once the turn's answer and tool results are stored (or the turn failed). */
  turnEnd(turnIndex: number): Promise<void>;
  /** After a turn: whether messages were delivered that keep the run going. */
  deliverAfterTurn(toolsCalled: boolean): Promise<boolean>;
  /**
   * The metadata blocks extensions require beside the final report, for the running
   * prompt: the `final_meta` tool and what was delivered (undefined when none is required).
   */
  readonly finalMeta: FinalMetaRun | undefined;
  /** Once per successful run, with the accepted report, before `agent_end`. */
  complete(report: DeliveredFinalReport): Promise<void>;
}

/** A report a run accepted. */
export type DeliveredFinalReport = Extract<FinalReport, { status: "delivered" }>;

/** What the no-op hooks need from the agent. */
export interface NoExtensionHooksPort {
  /** Appends a message to the agent's current session. */
  appendMessage(message: AgentMessage): Promise<string>;
  /** The agent's own tools by name. */
  readonly tools: ReadonlyMap<string, AgentTool>;
}

/** The hooks of an agent without extensions: messages are appended, tools run directly. */
export class NoExtensionHooks implements RunHooks {
  private runSystemPrompt: string | undefined;
  readonly streamListener = undefined;

  constructor(private readonly agent: NoExtensionHooksPort) {}

  async startRun(_prompt: string | undefined, systemPrompt: string | undefined): Promise<void> {
    this.runSystemPrompt = systemPrompt;
  }

  get systemPrompt(): string | undefined {
    return this.runSystemPrompt;
  }

  persistMessage(message: AgentMessage): Promise<string> {
    return this.agent.appendMessage(message);
  }

  async turnStart(): Promise<void> {}

  async context(messages: AgentMessage[]): Promise<AgentMessage[]> {
    return messages;
  }

  toolDefinitions(): ToolDefinition[] {
    return [];
  }

  async beforeProviderRequest(): Promise<void> {}

  async assistantStored(): Promise<void> {}

  runToolCall(call: ModelToolCall, options: ToolRunOptions): Promise<ToolRunOutcome> {
    return runToolCall(this.agent.tools.get(call.name), call, options);
  }

  async ttsrTriggered(): Promise<void> {}

  async turnEnd(): Promise<void> {}

  async deliverAfterTurn(_toolsCalled: boolean): Promise<boolean> {
    return false;
  }

  readonly finalMeta = undefined;

  async complete(): Promise<void> {}
}
