import type {
  InjectedRule,
  SessionEntry,
  SessionHeader,
  SessionTreeNode,
} from "@arbor/session-store";
import type { z } from "zod";
import type { CustomMessageInput, ToolResultContent, UserMessageContent } from "./content.js";
import type { ExtensionEventResultMap } from "./event-results.js";
import type { ExtensionEventMap, ExtensionEventName } from "./events.js";
import type { ExecOptions, ExecResult } from "./exec.js";
import type { FinalMetaDefinition } from "./final-meta.js";
import type { MessageRenderer } from "./message-renderer.js";
import type {
  ContextUsage,
  ExtensionCompactResult,
  ExtensionModelInfo,
  ExtensionNavigateOptions,
  ExtensionNavigateResult,
} from "./session-actions.js";
import type { ExtensionUI } from "./ui.js";

/**
 * The getters a host's session offers (pi's names); a `Session` from `@arbor/session-store`
 * satisfies it. Extensions see it as a {@link ReadonlySessionView}.
 */
export interface SessionReader {
  getHeader(): SessionHeader;
  getLeafId(): string | null;
  getEntry(id: string): SessionEntry | undefined;
  getChildren(parentId: string): SessionEntry[];
  /** The path from the root to `fromId` (default: the leaf), root first. */
  getBranch(fromId?: string | null): SessionEntry[];
  getTree(): SessionTreeNode[];
  getLabel(id: string): string | undefined;
  getEntries(): SessionEntry[];
  /** The set title, or one made from the first user message. */
  getTitle(): string | undefined;
}

/**
 * A read-only view of the active session: pi's getter names, and the stream rules injected
 * on the current path. Extensions receive copies, so changing what a getter returns
 * changes nothing in the session.
 */
export interface ReadonlySessionView extends SessionReader {
  /**
   * The stream rules injected on the current path (its `ttsr_injection` entries), oldest
   * first: rule name, turn and interrupt number (pi's `getInjectedTtsrRules`).
   */
  getInjectedTtsrRules(): InjectedRule[];
}

/**
 * When a message sent while the agent runs reaches the model: `steer` after the current
 * tool calls, before the next model call; `followUp` once the agent has finished, as a new
 * turn; `nextTurn` together with the next user prompt, without starting a turn.
 */
export type DeliverAs = "steer" | "followUp" | "nextTurn";

/** Options of {@link ExtensionAPI.sendMessage}. */
export interface SendMessageOptions {
  /** Starts a turn when the agent is idle, so the model answers the message. Default false. */
  triggerTurn?: boolean;
  /** How to deliver while the agent is running. Default `steer`. */
  deliverAs?: DeliverAs;
}

/** Options of {@link ExtensionAPI.sendUserMessage}. */
export interface SendUserMessageOptions {
  /** How to deliver while the agent is running. Default `steer`. */
  deliverAs?: "steer" | "followUp";
}

/** What every handler, tool and command receives beside its input. */
export interface ExtensionContext {
  /** The name of the extension being called. */
  readonly extensionName: string;
  /** The project directory. */
  readonly cwd: string;
  /** The active session. Throws `host_unavailable` when there is none yet. */
  readonly session: ReadonlySessionView;
  /** Aborted when the operation the call belongs to is cancelled. */
  readonly signal: AbortSignal | undefined;
  /**
   * Whether someone can answer `ui` requests now. When false (`arbor run`, no app UI),
   * every request resolves to `undefined` at once.
   */
  readonly hasUI: boolean;
  /** Asks the user things and notifies them; see {@link ExtensionUI}. */
  readonly ui: ExtensionUI;
  /** The model the next request goes to; `undefined` when the app does not say. */
  readonly model: ExtensionModelInfo | undefined;
  /** The models the agent may use (its targets); empty when the app does not say. */
  readonly models: ExtensionModelInfo[];
  /** How full the context is; `undefined` when the app does not say. */
  getContextUsage(): ContextUsage | undefined;
  /**
   * Compacts the session now, focused by `instructions`. Only while the agent is idle
   * (from a command, or a `session_start` / `agent_complete` handler): during a prompt it
   * rejects with the host's busy error.
   * @throws ExtensionApiError `action_unavailable` when the app provides no session actions
   */
  compact(instructions?: string): Promise<ExtensionCompactResult>;
  /** Whether no prompt runs; `true` when the app does not say. */
  isIdle(): boolean;
  /** Ends the running prompt at once (its partial answer is kept); nothing when idle. */
  abort(): void;
}

/**
 * What a command's handler receives: the {@link ExtensionContext} and the actions that
 * change which session or branch the agent works in.
 */
export interface ExtensionCommandContext extends ExtensionContext {
  /** Resolves once no prompt runs. */
  waitForIdle(): Promise<void>;
  /**
   * Leaves the session for a new, empty one: extensions hear `session_shutdown`, then
   * `session_start` (`new`). After it, `ctx.session` is the new session.
   */
  newSession(): Promise<{ sessionId: string }>;
  /** Copies the path up to `entryId` into a new session and continues there (`fork`). */
  fork(entryId: string): Promise<{ sessionId: string }>;
  /**
   * Moves the leaf to `targetId` (`null`: before the first entry), optionally summarizing
   * the branch left; extensions hear `session_before_tree` / `session_tree`.
   */
  navigateTree(
    targetId: string | null,
    options?: ExtensionNavigateOptions,
  ): Promise<ExtensionNavigateResult>;
}

/** Progress a tool reports while it runs; the app shows the latest. */
export interface ToolProgressUpdate {
  /** What the tool has so far (a string is one text block). */
  content?: string | ToolResultContent[];
  /** Data for the app's view. */
  details?: unknown;
}

/** What a tool's `execute` receives beside its arguments. */
export interface ToolExecutionContext extends ExtensionContext {
  readonly toolCallId: string;
  /**
   * Reports progress while the tool runs (shown by the app, never sent to the model).
   * Calls after the tool finished are ignored.
   */
  onUpdate(update: ToolProgressUpdate): void;
}

/** What a tool returns: `content` for the model (a string is one text block), `details` for the UI. */
export interface ToolExecuteResult {
  content: string | ToolResultContent[];
  details?: unknown;
  isError?: boolean;
}

/** A tool the model may call; its arguments are validated with `parameters` before `execute`. */
export interface ExtensionToolDefinition<P extends z.ZodObject = z.ZodObject> {
  /** 1-64 of `[a-zA-Z0-9_-]`, unique across extensions. */
  name: string;
  /** Told to the model: what the tool does and when to use it. */
  description: string;
  parameters: P;
  execute(
    args: z.output<P>,
    ctx: ToolExecutionContext,
  ): ToolExecuteResult | Promise<ToolExecuteResult>;
}

/** A `/command` for the CLI and the server's commands endpoint. */
export interface ExtensionCommandDefinition {
  description: string;
  /**
   * Receives the text after the command name, trimmed. It may return text: the app sends
   * it as the next prompt (`CommandOutcome.prompt`).
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: handlers declared `() => void` must fit.
  handler(args: string, ctx: ExtensionCommandContext): void | string | Promise<void | string>;
}

/**
 * A handler of one event. It may return (or resolve to) the event's result to change what
 * happens, or nothing to only observe.
 */
export type ExtensionHandler<K extends ExtensionEventName> = (
  event: ExtensionEventMap[K],
  ctx: ExtensionContext,
) => HandlerReturn<ExtensionEventResultMap[K]>;

/** A result, nothing (`void` too, so plain observer functions fit), or a promise of either. */
// biome-ignore lint/suspicious/noConfusingVoidType: observers declared `(e) => void` must fit.
export type HandlerReturn<R> = R | undefined | void | Promise<R | undefined | void>;

/**
 * What an extension's factory receives: subscribe to events, register tools and commands,
 * act on the session, run programs.
 */
export interface ExtensionAPI {
  /** The extension's name (its file or package name). */
  readonly extensionName: string;
  /** The project directory. */
  readonly cwd: string;
  /** The active session. Throws `host_unavailable` when there is none yet. */
  readonly session: ReadonlySessionView;
  /**
   * Subscribes to an event. Handlers run in extension load order, then in `on` order.
   * @example
   * ```ts
   * arbor.on("tool_call", (event) =>
   *   event.toolName === "bash" ? { block: true, reason: "no shell here" } : undefined);
   * ```
   */
  on<K extends ExtensionEventName>(event: K, handler: ExtensionHandler<K>): void;
  /** Adds a message to the conversation, persisted as a `custom_message` entry. */
  sendMessage(message: CustomMessageInput, options?: SendMessageOptions): Promise<void>;
  /** Sends a message as if the user typed it; it always reaches the model. */
  sendUserMessage(content: UserMessageContent, options?: SendUserMessageOptions): Promise<void>;
  /**
   * Stores extension state as a `custom` entry, never sent to the model.
   * @returns the new entry's id
   */
  appendEntry(customType: string, data?: unknown): Promise<string>;
  /** Registers a tool; the first registration of a name wins, later ones are reported. */
  registerTool<P extends z.ZodObject>(tool: ExtensionToolDefinition<P>): void;
  /** Registers a `/name` command; the first registration of a name wins. */
  registerCommand(name: string, command: ExtensionCommandDefinition): void;
  /**
   * Requires a metadata block beside every final report (ai-agent's META). The model
   * delivers blocks through the built-in `final_meta` tool, next to its final answer; a run
   * succeeds only when the report and every required block validate. A valid report whose
   * blocks are missing or invalid is kept (locked) and the model is asked for the blocks
   * only; when it never delivers them the run fails with `final_meta_missing`. The first
   * registration of a name wins; later ones are reported. Read the accepted blocks in
   * `agent_complete` (`event.meta[name]`) or in the run's `finalReport.meta`.
   * @example
   * ```ts
   * arbor.requireFinalMeta({
   *   name: "sources",
   *   description: "The URLs the answer relies on",
   *   schema: z.object({ urls: z.array(z.string().url()).min(1) }),
   * });
   * arbor.on("agent_complete", (event) => save(event.report, event.meta.sources));
   * ```
   */
  requireFinalMeta<S extends z.ZodType>(definition: FinalMetaDefinition<S>): void;
  /**
   * Says how apps show `custom_message` entries of `customType` (the terminal app's
   * transcript, the plain-text export). Messages sent with `display: false` stay hidden.
   * The first registration of a type wins; later ones are reported.
   * @example
   * ```ts
   * arbor.registerMessageRenderer("todo-list", (message) =>
   *   (message.details as Todo[]).map((t) => `${t.done ? "[x]" : "[ ]"} ${t.text}`));
   * ```
   */
  registerMessageRenderer(customType: string, renderer: MessageRenderer): void;
  /** Sets the label of an entry, or clears it when `label` is absent or empty. */
  setLabel(entryId: string, label?: string): Promise<void>;
  /** Sets the session's title. */
  setTitle(title: string): Promise<void>;
  /**
   * Runs a program without a shell; see {@link execCommand}. `cwd` defaults to the project.
   * @example
   * ```ts
   * const { stdout } = await arbor.exec("git", ["rev-parse", "HEAD"], { timeoutMs: 5000 });
   * ```
   */
  exec(command: string, args?: readonly string[], options?: ExecOptions): Promise<ExecResult>;
}

/**
 * An extension: the default export of its module. It runs once at load and registers what
 * it needs.
 * @example
 * ```ts
 * export default function (arbor: ExtensionAPI) {
 *   arbor.on("session_start", (event) => { … });
 * }
 * ```
 */
export type ExtensionFactory = (arbor: ExtensionAPI) => void | Promise<void>;

/**
 * What the turn runner provides so extensions can act on the session. The runner checks
 * arguments before they reach the host.
 */
export interface ExtensionHost {
  /** The active session. */
  readonly session: SessionReader;
  /** Persists a `custom_message` and delivers it as `options` say. */
  sendMessage(message: CustomMessageInput, options: SendMessageOptions): Promise<void>;
  /** Delivers a user message as `options` say. */
  sendUserMessage(content: UserMessageContent, options: SendUserMessageOptions): Promise<void>;
  /** Appends a `custom` entry and returns its id. */
  appendEntry(customType: string, data: unknown): Promise<string>;
  /** Appends a `label` entry (an absent label clears). */
  setLabel(entryId: string, label: string | undefined): Promise<void>;
  /** Appends a `session_info` entry with the title. */
  setTitle(title: string): Promise<void>;
}
