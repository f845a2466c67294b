/*
 * Pins the public API: a change that breaks plugin authors fails this file. The pins are
 * exact, so additions fail too, on purpose: update the pin, and say in the changeset
 * whether the change is additive (minor) or breaking (major).
 */
import type {
  AgentMessage,
  CompactionEntry,
  ContentBlock,
  FileOperations,
  InjectedRule,
  ModelRef,
  Session,
  SessionEntry,
  SessionHeader,
  SessionTreeNode,
} from "@arbor/session-store";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  type BeforeAgentStartOutcome,
  type CommandOutcome,
  type ContextOutcome,
  type ContextUsage,
  type CustomMessageInput,
  type CustomUIComponent,
  type CustomUIKey,
  type DeliverAs,
  EXTENSION_EVENT_NAMES,
  type ExecOptions,
  type ExecResult,
  type ExtensionAPI,
  type ExtensionCommandContext,
  type ExtensionCompactResult,
  type ExtensionContext,
  type ExtensionErrorEvent,
  type ExtensionEvent,
  type ExtensionEventMap,
  type ExtensionEventName,
  type ExtensionFactory,
  type ExtensionHost,
  type ExtensionModelInfo,
  type ExtensionNavigateOptions,
  type ExtensionNavigateResult,
  ExtensionRunner,
  type ExtensionSessionActions,
  type ExtensionUI,
  type ExtensionUIProvider,
  type FinalMetaDefinition,
  type ImageContent,
  type LoadedExtension,
  type MessageRenderer,
  type ReadonlySessionView,
  type RegisteredCommand,
  type RegisteredFinalMeta,
  type RegisteredTool,
  type RenderedMessage,
  type SendMessageOptions,
  type SendUserMessageOptions,
  type SessionBeforeCompactOutcome,
  type SessionReader,
  type ToolCallOutcome,
  type ToolExecutionContext,
  type ToolExecutionResult,
  type ToolProgressUpdate,
  type ToolResultContent,
  type ToolResultOutcome,
  type ToolUpdateEvent,
  type UINotification,
  type UIRequest,
  type UIRequestOptions,
  type UserMessageContent,
} from "./index.js";

describe("event names", () => {
  it("lists exactly these events, in this order", () => {
    expectTypeOf(EXTENSION_EVENT_NAMES).toEqualTypeOf<
      readonly [
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
      ]
    >();
    expectTypeOf<keyof ExtensionEventMap>().toEqualTypeOf<ExtensionEventName>();
    expectTypeOf<ExtensionEvent["type"]>().toEqualTypeOf<ExtensionEventName>();
  });
});

describe("event payloads", () => {
  type M = ExtensionEventMap;
  it("keeps every payload's fields", () => {
    expectTypeOf<M["session_start"]>().toEqualTypeOf<{
      type: "session_start";
      reason: "startup" | "resume" | "new" | "fork";
      sessionId: string;
      previousSessionId?: string;
    }>();
    expectTypeOf<M["session_shutdown"]>().toEqualTypeOf<{
      type: "session_shutdown";
      sessionId: string;
    }>();
    expectTypeOf<M["before_agent_start"]>().toEqualTypeOf<{
      type: "before_agent_start";
      prompt: string;
      images?: ImageContent[];
      systemPrompt: string;
    }>();
    expectTypeOf<M["context"]>().toEqualTypeOf<{ type: "context"; messages: AgentMessage[] }>();
    expectTypeOf<M["before_provider_request"]>().toEqualTypeOf<{
      type: "before_provider_request";
      model: ModelRef;
      turnIndex: number;
      request: Readonly<Record<string, unknown>>;
    }>();
    expectTypeOf<M["turn_start"]>().toEqualTypeOf<{
      type: "turn_start";
      turnIndex: number;
      timestamp: number;
    }>();
    expectTypeOf<M["turn_end"]>().toEqualTypeOf<{
      type: "turn_end";
      turnIndex: number;
      message: AgentMessage;
      toolResults: AgentMessage[];
    }>();
    expectTypeOf<M["message_start"]>().toEqualTypeOf<{
      type: "message_start";
      message: AgentMessage;
    }>();
    expectTypeOf<M["message_update"]["message"]>().toEqualTypeOf<AgentMessage>();
    expectTypeOf<M["message_update"]["delta"]["type"]>().toEqualTypeOf<string>();
    expectTypeOf<M["message_end"]>().toEqualTypeOf<{
      type: "message_end";
      message: AgentMessage;
      entryId?: string;
    }>();
    expectTypeOf<M["tool_call"]>().toEqualTypeOf<{
      type: "tool_call";
      toolCallId: string;
      toolName: string;
      input: Record<string, unknown>;
    }>();
    expectTypeOf<M["tool_result"]>().toEqualTypeOf<{
      type: "tool_result";
      toolCallId: string;
      toolName: string;
      input: Record<string, unknown>;
      content: ToolResultContent[];
      isError: boolean;
      details?: unknown;
    }>();
    expectTypeOf<M["session_before_compact"]>().toEqualTypeOf<{
      type: "session_before_compact";
      reason: "manual" | "threshold" | "overflow";
      tokensBefore: number;
      firstKeptEntryId?: string;
      messagesToSummarize: AgentMessage[];
      preparation: {
        firstKeptEntryId: string;
        messagesToSummarize: AgentMessage[];
        turnPrefixMessages: AgentMessage[];
        splitTurn: boolean;
        tokensBefore: number;
        previousSummary?: string;
        fileOperations: FileOperations;
      };
      branchEntries: SessionEntry[];
      previousCompactions: CompactionEntry[];
      model: ModelRef;
      customInstructions?: string;
      prompt: string;
      summary?: string;
      details?: unknown;
    }>();
    expectTypeOf<M["session_compact"]>().toEqualTypeOf<{
      type: "session_compact";
      entryId: string;
      summary: string;
      firstKeptEntryId?: string;
      tokensBefore: number;
      fromExtension: boolean;
    }>();
    expectTypeOf<M["session_before_tree"]>().toEqualTypeOf<{
      type: "session_before_tree";
      targetId: string | null;
      oldLeafId: string | null;
      commonAncestorId: string | null;
      entriesToSummarize: SessionEntry[];
      userWantsSummary: boolean;
      summary?: string;
      details?: unknown;
    }>();
    expectTypeOf<M["session_tree"]>().toEqualTypeOf<{
      type: "session_tree";
      newLeafId: string | null;
      oldLeafId: string | null;
      summaryEntryId?: string;
      fromExtension: boolean;
    }>();
    expectTypeOf<M["ttsr_triggered"]>().toEqualTypeOf<{
      type: "ttsr_triggered";
      turnIndex: number;
      rules: { name: string; path?: string; content: string; scope: string[] }[];
      source: { kind: "text" } | { kind: "thinking" } | { kind: "tool"; id: string; name: string };
    }>();
    expectTypeOf<M["model_select"]>().toEqualTypeOf<{
      type: "model_select";
      model: ModelRef;
      previousModel: ModelRef | null;
      source: "set" | "cycle" | "restore" | "failover";
    }>();
    expectTypeOf<M["agent_complete"]>().toEqualTypeOf<{
      type: "agent_complete";
      report: unknown;
      repaired: boolean;
      entryId?: string;
      meta: Record<string, unknown>;
    }>();
    expectTypeOf<ExtensionErrorEvent>().toEqualTypeOf<{
      type: "extension_error";
      extensionName: string;
      extensionPath: string;
      event:
        | ExtensionEventName
        | "load"
        | "tool"
        | "command"
        | "final_meta"
        | "renderer"
        | "background";
      kind:
        | "load_failed"
        | "threw"
        | "timeout"
        | "invalid_return"
        | "invalid_registration"
        | "collision"
        | "unhandled_rejection"
        | "uncaught_exception"
        | "blocked"
        | "terminated";
      error: string;
    }>();
  });
});

describe("ExtensionAPI", () => {
  it("types handlers per event and their return values", () => {
    const factory: ExtensionFactory = (arbor) => {
      arbor.on("tool_call", (event, ctx) => {
        expectTypeOf(event.toolName).toEqualTypeOf<string>();
        expectTypeOf(ctx).toEqualTypeOf<ExtensionContext>();
        return { block: true, reason: "no" };
      });
      arbor.on("tool_result", async (event) => ({
        content: event.content,
        isError: true,
        details: 1,
      }));
      arbor.on("context", (event) => ({ messages: event.messages }));
      arbor.on("before_agent_start", (event) => ({
        systemPrompt: event.systemPrompt,
        message: { customType: "x", content: "y", display: false },
      }));
      arbor.on("session_before_compact", () => ({ cancel: true }));
      arbor.on("session_before_tree", () => ({ summary: "s", details: {} }));
      arbor.on("turn_end", () => {});
      const observer = (event: ExtensionEventMap["message_update"]): void => void event;
      arbor.on("message_update", observer);
      // @ts-expect-error a misspelt result key is a type error
      arbor.on("tool_call", () => ({ blocked: true }));
      // @ts-expect-error unknown events are rejected
      arbor.on("turnStart", () => {});
    };
    expectTypeOf(factory).toEqualTypeOf<ExtensionFactory>();
    expectTypeOf<ExtensionFactory>().toEqualTypeOf<(arbor: ExtensionAPI) => void | Promise<void>>();
  });

  it("keeps the method signatures", () => {
    expectTypeOf<ExtensionAPI["sendMessage"]>().toEqualTypeOf<
      (message: CustomMessageInput, options?: SendMessageOptions) => Promise<void>
    >();
    expectTypeOf<CustomMessageInput>().toEqualTypeOf<{
      customType: string;
      content: string | ContentBlock[];
      display: boolean;
      details?: unknown;
    }>();
    expectTypeOf<SendMessageOptions>().toEqualTypeOf<{
      triggerTurn?: boolean;
      deliverAs?: DeliverAs;
    }>();
    expectTypeOf<DeliverAs>().toEqualTypeOf<"steer" | "followUp" | "nextTurn">();
    expectTypeOf<ExtensionAPI["sendUserMessage"]>().toEqualTypeOf<
      (content: UserMessageContent, options?: SendUserMessageOptions) => Promise<void>
    >();
    expectTypeOf<SendUserMessageOptions>().toEqualTypeOf<{ deliverAs?: "steer" | "followUp" }>();
    expectTypeOf<ExtensionAPI["appendEntry"]>().toEqualTypeOf<
      (customType: string, data?: unknown) => Promise<string>
    >();
    expectTypeOf<ExtensionAPI["registerCommand"]>().toEqualTypeOf<
      (
        name: string,
        command: {
          description: string;
          handler(
            args: string,
            ctx: ExtensionCommandContext,
            // biome-ignore lint/suspicious/noConfusingVoidType: the pinned signature.
          ): void | string | Promise<void | string>;
        },
      ) => void
    >();
    expectTypeOf<ExtensionAPI["setLabel"]>().toEqualTypeOf<
      (entryId: string, label?: string) => Promise<void>
    >();
    expectTypeOf<ExtensionAPI["requireFinalMeta"]>().toEqualTypeOf<
      <S extends z.ZodType>(definition: FinalMetaDefinition<S>) => void
    >();
    expectTypeOf<FinalMetaDefinition<z.ZodString>>().toEqualTypeOf<{
      name: string;
      description: string;
      schema: z.ZodString;
    }>();
    expectTypeOf<ExtensionAPI["setTitle"]>().toEqualTypeOf<(title: string) => Promise<void>>();
    expectTypeOf<ExtensionAPI["session"]>().toEqualTypeOf<ReadonlySessionView>();
    expectTypeOf<ExtensionAPI["exec"]>().toEqualTypeOf<
      (command: string, args?: readonly string[], options?: ExecOptions) => Promise<ExecResult>
    >();
    expectTypeOf<ExecOptions>().toExtend<{
      timeoutMs?: number;
      cwd?: string;
      signal?: AbortSignal;
    }>();
    expectTypeOf<ExecResult>().toExtend<{
      stdout: string;
      stderr: string;
      code: number | null;
      killed: boolean;
    }>();
    expectTypeOf<ExtensionContext>().toEqualTypeOf<{
      readonly extensionName: string;
      readonly cwd: string;
      readonly session: ReadonlySessionView;
      readonly signal: AbortSignal | undefined;
      readonly hasUI: boolean;
      readonly ui: ExtensionUI;
      readonly model: ExtensionModelInfo | undefined;
      readonly models: ExtensionModelInfo[];
      getContextUsage(): ContextUsage | undefined;
      compact(instructions?: string): Promise<ExtensionCompactResult>;
      isIdle(): boolean;
      abort(): void;
    }>();
    expectTypeOf<ExtensionCommandContext>().toExtend<ExtensionContext>();
    expectTypeOf<Omit<ExtensionCommandContext, keyof ExtensionContext>>().toEqualTypeOf<{
      waitForIdle(): Promise<void>;
      newSession(): Promise<{ sessionId: string }>;
      fork(entryId: string): Promise<{ sessionId: string }>;
      navigateTree(
        targetId: string | null,
        options?: ExtensionNavigateOptions,
      ): Promise<ExtensionNavigateResult>;
    }>();
    expectTypeOf<ExtensionAPI["registerMessageRenderer"]>().toEqualTypeOf<
      (customType: string, renderer: MessageRenderer) => void
    >();
    expectTypeOf<MessageRenderer>().toEqualTypeOf<
      (
        message: {
          customType: string;
          content: string | ContentBlock[];
          display: boolean;
          details?: unknown;
        },
        options: { expanded: boolean; width: number; target?: "terminal" | "html" },
      ) => string | string[] | { html: string } | undefined
    >();
  });

  it("keeps the UI requests, each resolving to undefined as no answer", () => {
    expectTypeOf<ExtensionUI>().toEqualTypeOf<{
      select(
        title: string,
        options: readonly string[],
        opts?: UIRequestOptions,
      ): Promise<string | undefined>;
      confirm(
        title: string,
        message: string,
        opts?: UIRequestOptions,
      ): Promise<boolean | undefined>;
      input(
        title: string,
        placeholder?: string,
        opts?: UIRequestOptions,
      ): Promise<string | undefined>;
      notify(message: string, level?: "info" | "warning" | "error"): void;
      custom<T>(component: CustomUIComponent<T>, opts?: UIRequestOptions): Promise<T | undefined>;
    }>();
    expectTypeOf<UIRequestOptions>().toEqualTypeOf<{ signal?: AbortSignal; timeoutMs?: number }>();
    expectTypeOf<CustomUIComponent<number>>().toEqualTypeOf<{
      render(width: number): string[];
      handleKey?(key: CustomUIKey, done: (value: number) => void): void;
    }>();
    expectTypeOf<ExtensionUIProvider>().toEqualTypeOf<{
      readonly interactive: boolean;
      request(request: UIRequest, signal: AbortSignal): unknown;
      notify(notification: UINotification): void;
    }>();
    expectTypeOf<UIRequest["kind"]>().toEqualTypeOf<"select" | "confirm" | "input" | "custom">();
    expectTypeOf<UINotification>().toEqualTypeOf<{
      extensionName: string;
      message: string;
      level: "info" | "warning" | "error";
    }>();
  });

  it("keeps the session actions an app provides", () => {
    expectTypeOf<ExtensionSessionActions>().toEqualTypeOf<{
      model(): ExtensionModelInfo | undefined;
      models(): ExtensionModelInfo[];
      getContextUsage(): ContextUsage | undefined;
      compact(instructions?: string): Promise<ExtensionCompactResult>;
      isIdle(): boolean;
      abort(): void;
      waitForIdle(): Promise<void>;
      newSession(): Promise<{ sessionId: string }>;
      fork(entryId: string): Promise<{ sessionId: string }>;
      navigateTree(
        targetId: string | null,
        options: ExtensionNavigateOptions,
      ): Promise<ExtensionNavigateResult>;
    }>();
    expectTypeOf<ExtensionModelInfo>().toEqualTypeOf<{
      provider: string;
      id: string;
      contextWindow?: number;
    }>();
    expectTypeOf<ContextUsage>().toEqualTypeOf<{
      tokens: number;
      contextWindow: number;
      percent: number;
    }>();
    expectTypeOf<ExtensionNavigateOptions>().toEqualTypeOf<{ summarize?: boolean }>();
    expectTypeOf<ExtensionNavigateResult>().toEqualTypeOf<{ cancelled: boolean }>();
  });

  it("infers tool arguments from the zod parameters", () => {
    (arbor: ExtensionAPI) =>
      arbor.registerTool({
        name: "read",
        description: "Reads a file",
        parameters: z.object({ path: z.string(), limit: z.number().default(10) }),
        execute(args, ctx) {
          expectTypeOf(args).toEqualTypeOf<{ path: string; limit: number }>();
          expectTypeOf(ctx).toEqualTypeOf<ToolExecutionContext>();
          expectTypeOf(ctx.toolCallId).toEqualTypeOf<string>();
          expectTypeOf(ctx.onUpdate).toEqualTypeOf<(update: ToolProgressUpdate) => void>();
          return { content: [{ type: "text", text: args.path }], details: { size: 1 } };
        },
      });
  });
});

describe("ReadonlySessionView and ExtensionHost", () => {
  it("is satisfied by a session-store Session", () => {
    expectTypeOf<Session>().toExtend<SessionReader>();
    expectTypeOf<ReadonlySessionView>().toEqualTypeOf<{
      getHeader(): SessionHeader;
      getLeafId(): string | null;
      getEntry(id: string): SessionEntry | undefined;
      getChildren(parentId: string): SessionEntry[];
      getBranch(fromId?: string | null): SessionEntry[];
      getTree(): SessionTreeNode[];
      getLabel(id: string): string | undefined;
      getEntries(): SessionEntry[];
      getTitle(): string | undefined;
      getInjectedTtsrRules(): InjectedRule[];
    }>();
    expectTypeOf<SessionReader>().toEqualTypeOf<{
      getHeader(): SessionHeader;
      getLeafId(): string | null;
      getEntry(id: string): SessionEntry | undefined;
      getChildren(parentId: string): SessionEntry[];
      getBranch(fromId?: string | null): SessionEntry[];
      getTree(): SessionTreeNode[];
      getLabel(id: string): string | undefined;
      getEntries(): SessionEntry[];
      getTitle(): string | undefined;
    }>();
  });

  it("keeps the host's side-effect methods", () => {
    expectTypeOf<ExtensionHost>().toEqualTypeOf<{
      readonly session: SessionReader;
      sendMessage(message: CustomMessageInput, options: SendMessageOptions): Promise<void>;
      sendUserMessage(content: UserMessageContent, options: SendUserMessageOptions): Promise<void>;
      appendEntry(customType: string, data: unknown): Promise<string>;
      setLabel(entryId: string, label: string | undefined): Promise<void>;
      setTitle(title: string): Promise<void>;
    }>();
  });
});

describe("ExtensionRunner", () => {
  it("resolves emit to each event's outcome", () => {
    const runner = new ExtensionRunner({ cwd: "/p" });
    expectTypeOf(
      runner.emit({ type: "tool_call", toolCallId: "", toolName: "", input: {} }),
    ).toEqualTypeOf<Promise<ToolCallOutcome>>();
    expectTypeOf(
      runner.emit({
        type: "tool_result",
        toolCallId: "",
        toolName: "",
        input: {},
        content: [],
        isError: false,
      }),
    ).toEqualTypeOf<Promise<ToolResultOutcome>>();
    expectTypeOf(runner.emit({ type: "context", messages: [] })).toEqualTypeOf<
      Promise<ContextOutcome>
    >();
    expectTypeOf(
      runner.emit({ type: "before_agent_start", prompt: "", systemPrompt: "" }),
    ).toEqualTypeOf<Promise<BeforeAgentStartOutcome>>();
    expectTypeOf(
      runner.emit({
        type: "session_before_compact",
        reason: "manual",
        tokensBefore: 0,
        messagesToSummarize: [],
        preparation: {
          firstKeptEntryId: "e1",
          messagesToSummarize: [],
          turnPrefixMessages: [],
          splitTurn: false,
          tokensBefore: 0,
          fileOperations: { readFiles: [], modifiedFiles: [] },
        },
        branchEntries: [],
        previousCompactions: [],
        model: { provider: "p", modelId: "m" },
        prompt: "Summarize.",
      }),
    ).toEqualTypeOf<Promise<SessionBeforeCompactOutcome>>();
    expectTypeOf<SessionBeforeCompactOutcome>().toEqualTypeOf<
      | { cancelled: true; extensionName: string }
      | {
          cancelled: false;
          summary?: string;
          details?: unknown;
          extensionName?: string;
          prompt?: string;
        }
    >();
    expectTypeOf(runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 })).toEqualTypeOf<
      Promise<undefined>
    >();
    expectTypeOf<ToolCallOutcome>().toEqualTypeOf<
      { blocked: false } | { blocked: true; reason: string; extensionName: string }
    >();
  });

  it("keeps the loading, registry and execution methods", () => {
    const runner = new ExtensionRunner({
      cwd: "/p",
      homeDir: "/h",
      paths: [],
      packages: [],
      handlerTimeoutMs: 1,
    });
    expectTypeOf(runner.loadAll()).toEqualTypeOf<Promise<LoadedExtension[]>>();
    expectTypeOf(runner.addExtension).parameters.toEqualTypeOf<[string, ExtensionFactory]>();
    expectTypeOf(runner.getTools()).toEqualTypeOf<RegisteredTool[]>();
    expectTypeOf(runner.getCommands()).toEqualTypeOf<RegisteredCommand[]>();
    expectTypeOf(runner.getFinalMetaRequirements()).toEqualTypeOf<RegisteredFinalMeta[]>();
    expectTypeOf(runner.executeTool("t", {}, { toolCallId: "c" })).toEqualTypeOf<
      Promise<ToolExecutionResult>
    >();
    expectTypeOf(runner.runCommand("c", "")).toEqualTypeOf<Promise<CommandOutcome>>();
    expectTypeOf<CommandOutcome>().toEqualTypeOf<
      | { status: "done"; prompt?: string }
      | { status: "unknown_command" }
      | { status: "failed"; error: string }
    >();
    expectTypeOf(runner.bindUI).parameters.toEqualTypeOf<[ExtensionUIProvider | undefined]>();
    expectTypeOf(runner.bindSessionActions).parameters.toEqualTypeOf<
      [ExtensionSessionActions | undefined]
    >();
    expectTypeOf(runner.hasUI).toEqualTypeOf<boolean>();
    expectTypeOf(runner.renderMessage).returns.toEqualTypeOf<RenderedMessage | undefined>();
    expectTypeOf(runner.onToolUpdate).parameters.toEqualTypeOf<
      [(update: ToolUpdateEvent) => void]
    >();
    expectTypeOf<ToolUpdateEvent>().toEqualTypeOf<{
      toolCallId: string;
      toolName: string;
      extensionName: string;
      content: ToolResultContent[];
      details?: unknown;
    }>();
    expectTypeOf(runner.bindHost).parameters.toEqualTypeOf<[ExtensionHost | undefined]>();
    expectTypeOf(runner.onError).returns.toEqualTypeOf<() => void>();
    expectTypeOf<RegisteredTool["jsonSchema"]>().toEqualTypeOf<Record<string, unknown>>();
  });
});
