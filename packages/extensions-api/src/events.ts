import type {
  AgentMessage,
  CompactionEntry,
  FileOperations,
  ModelRef,
  SessionEntry,
} from "@arbor/session-store";
import type { ImageContent, ToolResultContent } from "./content.js";

/**
 * The names of every event an extension can subscribe to, in the order a prompt meets them.
 * Names are snake_case, as plugin authors know them from pi. The runner's own
 * `extension_error` is not among them: it goes to the runner's error listeners.
 */
export const EXTENSION_EVENT_NAMES = [
  "session_start",
  "before_agent_start",
  "context",
  "before_provider_request",
  "turn_start",
  "message_start",
  "message_update",
  "message_end",
  "tool_call",
  "tool_result",
  "turn_end",
  "ttsr_triggered",
  "model_select",
  "agent_complete",
  "session_before_compact",
  "session_compact",
  "session_before_tree",
  "session_tree",
  "session_shutdown",
] as const;

/** One of {@link EXTENSION_EVENT_NAMES}. */
export type ExtensionEventName = (typeof EXTENSION_EVENT_NAMES)[number];

const eventNames: ReadonlySet<string> = new Set(EXTENSION_EVENT_NAMES);

/**
 * Tells whether a string names an extension event.
 * @param name - a name from user input or a loaded extension
 */
export function isExtensionEventName(name: string): name is ExtensionEventName {
  return eventNames.has(name);
}

/** Why a session started: a fresh process, a resumed file, a `/new`, or a fork of another. */
export type SessionStartReason = "startup" | "resume" | "new" | "fork";

/** A session became active. */
export interface SessionStartEvent {
  type: "session_start";
  reason: SessionStartReason;
  sessionId: string;
  /** The session this one was forked from or replaced, when there is one. */
  previousSessionId?: string;
}

/** The active session is about to close (exit, or a switch to another session). */
export interface SessionShutdownEvent {
  type: "session_shutdown";
  sessionId: string;
}

/** A user prompt was accepted; the agent is about to run for it. */
export interface BeforeAgentStartEvent {
  type: "before_agent_start";
  prompt: string;
  images?: ImageContent[];
  /** The system prompt for this prompt, as changed by earlier handlers. */
  systemPrompt: string;
}

/** The messages for one model call are ready; a handler may replace them for this call. */
export interface ContextEvent {
  type: "context";
  /** The messages as changed by earlier handlers. */
  messages: AgentMessage[];
}

/** A request is about to go to the provider (observe only). */
export interface BeforeProviderRequestEvent {
  type: "before_provider_request";
  model: ModelRef;
  turnIndex: number;
  /** The provider-neutral request (system prompt, messages, tools, settings), without its signal. */
  request: Readonly<Record<string, unknown>>;
}

/** A turn (one model call and the tool calls it asks for) begins. */
export interface TurnStartEvent {
  type: "turn_start";
  turnIndex: number;
  /** Milliseconds since the epoch, from the runner's clock. */
  timestamp: number;
}

/** A turn ended: the assistant message and the results of the tools it called. */
export interface TurnEndEvent {
  type: "turn_end";
  turnIndex: number;
  message: AgentMessage;
  toolResults: AgentMessage[];
}

/** A message (user, assistant, tool result, custom) starts. */
export interface MessageStartEvent {
  type: "message_start";
  message: AgentMessage;
}

/** One provider stream event (`text_delta`, `toolcall_delta`, …), as the runner received it. */
export interface StreamDelta {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The assistant message grew by one stream event. */
export interface MessageUpdateEvent {
  type: "message_update";
  /** The message assembled so far. */
  message: AgentMessage;
  delta: StreamDelta;
}

/** A message is complete and persisted. */
export interface MessageEndEvent {
  type: "message_end";
  message: AgentMessage;
  /** The id of the `message` entry it was stored as. */
  entryId?: string;
}

/** The model called a tool; a handler may block the call before it runs. */
export interface ToolCallEvent {
  type: "tool_call";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}

/** A tool ran; a handler may change what the model is told. */
export interface ToolResultEvent {
  type: "tool_result";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  /** The content as changed by earlier handlers. */
  content: ToolResultContent[];
  isError: boolean;
  /** Tool data kept beside the result and never sent to the model. */
  details?: unknown;
}

/** What asked for a compaction: the user, the token threshold, or a context overflow. */
export type CompactionReason = "manual" | "threshold" | "overflow";

/** What a compaction will do, planned before any model call (pi's `CompactionPreparation`). */
export interface CompactionPreparation {
  /** The first entry kept verbatim after the summary. */
  firstKeptEntryId: string;
  /** The messages the summary replaces. */
  messagesToSummarize: AgentMessage[];
  /** When the cut falls inside a turn: that turn's messages before the cut. */
  turnPrefixMessages: AgentMessage[];
  /** Whether the cut falls inside a turn. */
  splitTurn: boolean;
  /** Estimated tokens of the context before compaction. */
  tokensBefore: number;
  /** The summary of the previous compaction, which the new one updates. */
  previousSummary?: string;
  /** Files read and modified, the previous compaction's included. */
  fileOperations: FileOperations;
}

/**
 * The session is about to be compacted; a handler may cancel, supply the summary, or
 * replace the prompt the model summarizes with.
 */
export interface SessionBeforeCompactEvent {
  type: "session_before_compact";
  reason: CompactionReason;
  /** The same as `preparation.tokensBefore`. */
  tokensBefore: number;
  /** The same as `preparation.firstKeptEntryId`. */
  firstKeptEntryId?: string;
  /** The same as `preparation.messagesToSummarize`. */
  messagesToSummarize: AgentMessage[];
  /** The plan: what is summarized, what is kept, the previous summary, the files touched. */
  preparation: CompactionPreparation;
  /** Every entry of the branch being compacted, root first. */
  branchEntries: SessionEntry[];
  /** The compactions already on the branch, newest first. */
  previousCompactions: CompactionEntry[];
  /** The model that will write the summary. */
  model: ModelRef;
  /** Instructions the user gave with `/compact`. */
  customInstructions?: string;
  /**
   * The instruction the model summarizes the conversation with (the runner's, or the one
   * an earlier handler put in its place). Return `{ prompt }` to replace it.
   */
  prompt: string;
  /** A summary supplied by an earlier handler. */
  summary?: string;
  /** Details supplied by an earlier handler, stored on the compaction entry. */
  details?: unknown;
}

/** A compaction entry was written. */
export interface SessionCompactEvent {
  type: "session_compact";
  entryId: string;
  summary: string;
  firstKeptEntryId?: string;
  tokensBefore: number;
  /** True when an extension supplied the summary. */
  fromExtension: boolean;
}

/** The leaf is about to move to another point of the tree; a handler may cancel or supply a summary. */
export interface SessionBeforeTreeEvent {
  type: "session_before_tree";
  /** Where the leaf goes (`null`: before the first entry). */
  targetId: string | null;
  oldLeafId: string | null;
  /** The deepest entry both the old leaf and the target descend from (`null`: none). */
  commonAncestorId: string | null;
  /** The entries of the branch being left that a summary would cover. */
  entriesToSummarize: SessionEntry[];
  /** Whether the user asked for a summary of the branch left (`summarize: true`). */
  userWantsSummary: boolean;
  /** A summary supplied by an earlier handler. */
  summary?: string;
  /** Details supplied by an earlier handler, stored on the branch summary entry. */
  details?: unknown;
}

/** The leaf moved. */
export interface SessionTreeEvent {
  type: "session_tree";
  newLeafId: string | null;
  oldLeafId: string | null;
  /** The `branch_summary` entry written for the branch left, if any. */
  summaryEntryId?: string;
  /** True when an extension supplied the summary. */
  fromExtension: boolean;
}

/** The stream a stream rule matched in (the same shape `@arbor/ttsr` uses). */
export type TtsrTriggerSource =
  | { kind: "text" }
  | { kind: "thinking" }
  | { kind: "tool"; id: string; name: string };

/** A stream rule that fired, as `ttsr_triggered` carries it. */
export interface TtsrTriggeredRule {
  name: string;
  /** The file the rule was loaded from, when it came from one. */
  path?: string;
  /** The reminder injected for the model. */
  content: string;
  /** Which streams the rule watches (`text`, `thinking`, `tool`, `tool:<name>`, …). */
  scope: string[];
}

/** Stream rules interrupted the answer; it will be retried with the rules injected. */
export interface TtsrTriggeredEvent {
  type: "ttsr_triggered";
  turnIndex: number;
  /** The rules that fired. */
  rules: TtsrTriggeredRule[];
  source: TtsrTriggerSource;
}

/** How a model came to be selected. */
export type ModelSelectSource = "set" | "cycle" | "restore" | "failover";

/** The model changed. */
export interface ModelSelectEvent {
  type: "model_select";
  model: ModelRef;
  previousModel: ModelRef | null;
  source: ModelSelectSource;
}

/**
 * A run ended with an accepted final report (and every metadata block extensions require
 * beside it): emitted once per successful run, after the report is stored. The place for
 * what an extension does with a finished task (ai-agent's `onComplete`).
 */
export interface AgentCompleteEvent {
  type: "agent_complete";
  /** The accepted report: the final-report tool's value, or the final answer's text. */
  report: unknown;
  /** True when a trivial repair was needed (JSON in a string, a fence, a wrapper). */
  repaired: boolean;
  /** The stored answer that carried the report. */
  entryId?: string;
  /** The required metadata blocks, by name (`{}` when none is required). */
  meta: Record<string, unknown>;
}

/** Every extension event, by name. */
export interface ExtensionEventMap {
  session_start: SessionStartEvent;
  before_agent_start: BeforeAgentStartEvent;
  context: ContextEvent;
  before_provider_request: BeforeProviderRequestEvent;
  turn_start: TurnStartEvent;
  message_start: MessageStartEvent;
  message_update: MessageUpdateEvent;
  message_end: MessageEndEvent;
  tool_call: ToolCallEvent;
  tool_result: ToolResultEvent;
  turn_end: TurnEndEvent;
  ttsr_triggered: TtsrTriggeredEvent;
  model_select: ModelSelectEvent;
  agent_complete: AgentCompleteEvent;
  session_before_compact: SessionBeforeCompactEvent;
  session_compact: SessionCompactEvent;
  session_before_tree: SessionBeforeTreeEvent;
  session_tree: SessionTreeEvent;
  session_shutdown: SessionShutdownEvent;
}

/** Any extension event, discriminated on `type`. */
export type ExtensionEvent = ExtensionEventMap[ExtensionEventName];

/** What went wrong with an extension. */
export type ExtensionErrorKind =
  /** The module could not be found, imported or run, or has no function as default export. */
  | "load_failed"
  /** A handler, factory, tool or command threw or rejected. */
  | "threw"
  /** A handler or factory did not settle within the handler timeout. */
  | "timeout"
  /** A handler or tool returned a value its schema rejects. */
  | "invalid_return"
  /** A tool or command registration was malformed. */
  | "invalid_registration"
  /** A tool or command name was already taken; the first registration stays. */
  | "collision"
  /** A promise the extension created rejected with nobody handling it (see `guardExtensionFailures`). */
  | "unhandled_rejection"
  /** A callback the extension scheduled (a timer, an emitter listener) threw (see `guardExtensionFailures`). */
  | "uncaught_exception"
  /** A call kept the event loop busy past `blockReportMs`; reported after it returned. */
  | "blocked"
  /** An extension running in a worker passed its deadline; the worker was stopped and the extension disabled. */
  | "terminated";

/**
 * Where an extension failed: an event it handled, its loading, a tool, a command, a
 * `requireFinalMeta` registration, or `background` for work it left running (timers,
 * un-awaited promises).
 */
export type ExtensionErrorOrigin =
  | ExtensionEventName
  | "load"
  | "tool"
  | "command"
  | "final_meta"
  | "renderer"
  | "background";

/** The runner's own event: an extension failed and was skipped; the session goes on. */
export interface ExtensionErrorEvent {
  type: "extension_error";
  extensionName: string;
  /** The module path, or the name given to an inline extension. */
  extensionPath: string;
  event: ExtensionErrorOrigin;
  kind: ExtensionErrorKind;
  /** What was wrong, for a person to read. */
  error: string;
}
