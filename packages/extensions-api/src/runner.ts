import { z } from "zod";
import {
  CapabilityRegistry,
  type CommandOutcome,
  type ToolExecutionOptions,
  type ToolExecutionResult,
  type ToolUpdateEvent,
} from "./capability-registry.js";
import { type DiscoveryProblem, discoverExtensions, type ExtensionSource } from "./discovery.js";
import { describeError, ExtensionApiError } from "./errors.js";
import { startFold } from "./event-precedence.js";
import { type ExtensionEventOutcomeMap, extensionEventResultSchemas } from "./event-results.js";
import type { ExtensionErrorEvent, ExtensionEvent, ExtensionEventName } from "./events.js";
import type {
  ExtensionCommandContext,
  ExtensionContext,
  ExtensionFactory,
  ExtensionHost,
  ReadonlySessionView,
} from "./extension-api.js";
import { createExtensionApi } from "./extension-api-binding.js";
import { callExtension, type ExtensionCallPolicy } from "./extension-call.js";
import { createCommandContext, createExtensionContext } from "./extension-context.js";
import type { ExtensionOwner } from "./extension-scope.js";
import type { RegisteredFinalMeta } from "./final-meta.js";
import { FinalMetaRegistry } from "./final-meta-registry.js";
import { createModuleImporter, factoryFromModule, type ModuleImporter } from "./loader.js";
import type {
  ExportableMessage,
  ExportRendering,
  MessageRenderOptions,
  RenderableMessage,
  RenderedMessage,
} from "./message-renderer.js";
import type {
  ExtensionRecord,
  LoadedExtension,
  RegisteredCommand,
  RegisteredTool,
} from "./registry.js";
import { RendererRegistry } from "./renderer-registry.js";
import type { ExtensionSessionActions } from "./session-actions.js";
import { copyingSessionView } from "./session-view.js";
import { DeadlineHold, systemTimers, type TimerSeam } from "./timeout.js";
import { DEFAULT_UI_TIMEOUT_MS, type ExtensionUIProvider } from "./ui.js";
import { hasInteractiveUI } from "./ui-requests.js";
import { workerExtensionFactory } from "./worker-extension.js";

/** How long a handler or factory may take before it is skipped, by default: 10 s. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 10_000;

/** How long importing one module may take before it is reported and skipped, by default: 10 s. */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000;

/** How long a call may hold the event loop before it is reported as `blocked`, by default: 1 s. */
export const DEFAULT_BLOCK_REPORT_MS = 1_000;

/** Receives every {@link ExtensionErrorEvent}. */
export type ExtensionErrorListener = (event: ExtensionErrorEvent) => void;

/** Receives every progress report of a running extension tool. */
export type ToolUpdateListener = (update: ToolUpdateEvent) => void;

/** Options of {@link ExtensionRunner}. */
export interface ExtensionRunnerOptions {
  /** The project directory: `.arbor/extensions/`, packages, relative paths and `exec`'s default cwd. */
  cwd: string;
  /** The user's home directory (apps pass `os.homedir()`); its `.arbor/extensions/` loads last. */
  homeDir?: string;
  /** Extension files or directories to load, relative to `cwd` or absolute. */
  paths?: readonly string[];
  /** npm packages, installed in the project, that declare `arbor.extensions`. */
  packages?: readonly string[];
  /** Whether `loadAll` looks in the project's `.arbor/extensions/` (default true); see {@link discoverExtensions}. */
  includeProject?: boolean;
  /** The session side; can be bound later with {@link ExtensionRunner.bindHost}. */
  host?: ExtensionHost;
  /** How extensions talk to the user; can be bound later with {@link ExtensionRunner.bindUI}. */
  ui?: ExtensionUIProvider;
  /** The app's session actions; can be bound later with {@link ExtensionRunner.bindSessionActions}. */
  sessionActions?: ExtensionSessionActions;
  /** How long a UI request waits for an answer, in ms. Default {@link DEFAULT_UI_TIMEOUT_MS}; 0 for no limit. */
  uiTimeoutMs?: number;
  /** Makes UI request ids; a seam for tests (default: random UUIDs). */
  generateId?: () => string;
  /** Per handler and per factory, in ms. Default {@link DEFAULT_HANDLER_TIMEOUT_MS}; 0 for none. */
  handlerTimeoutMs?: number;
  /**
   * How long importing one module (its top level, top-level `await` included) may take,
   * in ms. Default {@link DEFAULT_LOAD_TIMEOUT_MS}; 0 for none. A module past it is reported
   * (`load`, `timeout`) and the others load; its import cannot be cancelled and is ignored.
   */
  loadTimeoutMs?: number;
  /**
   * Report a handler, factory, tool or command whose synchronous part held the event loop
   * this long, in ms, once it returns (kind `blocked`). Default
   * {@link DEFAULT_BLOCK_REPORT_MS}; 0 to never report. Nothing can stop synchronous code
   * in-process: a handler that never returns freezes the process.
   */
  blockReportMs?: number;
  /**
   * Where modules loaded from files run: `in-process` (default; everything the API offers)
   * or `worker`, a worker thread each, where a handler past `handlerTimeoutMs` (a
   * synchronous infinite loop too) gets its thread terminated and the extension disabled
   * (kind `terminated`). In a worker only `on` works: events in, results out.
   */
  isolation?: "in-process" | "worker";
  /** Timer seam for handler and load timeouts. */
  timers?: TimerSeam;
  /** Called for every extension failure. More listeners: {@link ExtensionRunner.onError}. */
  onError?: ExtensionErrorListener;
  /** How modules are imported; jiti by default (see {@link createModuleImporter}). */
  importModule?: ModuleImporter;
}

/** Options of {@link ExtensionRunner.emit}. */
export interface EmitOptions {
  /** Handed to handlers as `ctx.signal`. */
  signal?: AbortSignal;
}

/**
 * Loads extensions and calls them in isolation: a handler that throws, hangs past the
 * timeout or returns an invalid value is reported as an `extension_error` and skipped.
 *
 * Handlers run in extension load order, then in `on` order. When several return values:
 * a block (`tool_call`) or cancel (`session_before_*`) wins at once and stops the chain;
 * replacements (messages, system prompt, tool result, summary) chain, each handler seeing
 * the event as changed by the ones before, and the last one wins; `before_agent_start`
 * messages are all kept.
 *
 * @example
 * ```ts
 * const runner = new ExtensionRunner({ cwd, homeDir: os.homedir(), onError: console.error });
 * await runner.loadAll();
 * runner.bindHost(session);
 * const call = await runner.emit({ type: "tool_call", toolCallId, toolName, input });
 * if (call.blocked) return call.reason;
 * ```
 */
export class ExtensionRunner {
  private readonly records: ExtensionRecord[] = [];
  private readonly capabilities = new CapabilityRegistry({
    report: (record, event, kind, error) => this.report(record, event, kind, error),
    context: (record, signal) => this.context(record, signal),
    commandContext: (record, signal) => this.commandContext(record, signal),
    toolUpdate: (update) => {
      for (const listener of [...this.toolUpdateListeners]) {
        try {
          listener(update);
        } catch {
          // A failing listener must not stop the tool.
        }
      }
    },
    call: (record, origin, what, run) =>
      callExtension(record.owner, origin, what, run, { ...this.policy(record), timeoutMs: 0 }),
  });
  private readonly finalMeta = new FinalMetaRegistry((record, kind, error) =>
    this.report(record, "final_meta", kind, error),
  );
  private readonly renderers = new RendererRegistry((record, kind, error) =>
    this.report(record, "renderer", kind, error),
  );
  private readonly errorListeners = new Set<ExtensionErrorListener>();
  private readonly toolUpdateListeners = new Set<ToolUpdateListener>();
  private ui: ExtensionUIProvider | undefined;
  /** Open while any UI request waits for the user: handler deadlines are paused. */
  private readonly userWait = new DeadlineHold();
  private actions: ExtensionSessionActions | undefined;
  private readonly timeoutMs: number;
  private readonly loadTimeoutMs: number;
  private readonly blockReportMs: number;
  private readonly timers: TimerSeam;
  private importModule: ModuleImporter | undefined;
  private host: ExtensionHost | undefined;
  /** Whether a bound host was removed (the session shut down); cleared by the next bind. */
  private shutDown = false;
  /** Aborted at shutdown; replaced by the next bind. */
  private lifetime = new AbortController();

  constructor(private readonly options: ExtensionRunnerOptions) {
    this.timeoutMs = options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
    this.loadTimeoutMs = options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
    this.blockReportMs = options.blockReportMs ?? DEFAULT_BLOCK_REPORT_MS;
    this.timers = options.timers ?? systemTimers;
    this.importModule = options.importModule;
    this.host = options.host;
    this.ui = options.ui;
    this.actions = options.sessionActions;
    if (options.onError) this.errorListeners.add(options.onError);
  }

  /** The project directory. */
  get cwd(): string {
    return this.options.cwd;
  }

  /**
   * Discovers (see {@link discoverExtensions}) and loads every extension, in order. A
   * module this runner already loaded is skipped; to reload, make a new runner.
   */
  async loadAll(): Promise<LoadedExtension[]> {
    const { sources, problems } = await discoverExtensions(this.options);
    for (const problem of problems) this.reportProblem(problem);
    const loaded: LoadedExtension[] = [];
    for (const source of sources) {
      if (this.records.some((record) => record.path === source.path)) continue;
      const extension = await this.load(source);
      if (extension) loaded.push(extension);
    }
    return loaded;
  }

  /** Imports one module and runs its factory; reports and returns `undefined` on failure. */
  async load(source: ExtensionSource): Promise<LoadedExtension | undefined> {
    if (this.options.isolation === "worker") return this.loadInWorker(source);
    this.importModule ??= createModuleImporter();
    const importModule = this.importModule;
    const imported = await callExtension(
      this.ownerOf(source),
      "load",
      "loading the module",
      () => importModule(source.path),
      // Transpiling is the loader's time, not the module's: no block report here.
      { ...this.policy(), timeoutMs: this.loadTimeoutMs, blockReportMs: 0 },
    );
    if (imported.status === "timeout") {
      this.report(
        source,
        "load",
        "timeout",
        `the module did not finish loading in ${this.loadTimeoutMs} ms (a top-level await that never settles?); it is skipped`,
      );
      return undefined;
    }
    let factory: ExtensionFactory;
    try {
      if (imported.status === "error") throw imported.error;
      factory = factoryFromModule(imported.value);
    } catch (error) {
      this.report(source, "load", "load_failed", `could not load: ${describeError(error)}`);
      return undefined;
    }
    return this.activate(source, factory);
  }

  private loadInWorker(source: ExtensionSource): Promise<LoadedExtension | undefined> {
    const factory = workerExtensionFactory({
      name: source.name,
      path: source.path,
      cwd: this.cwd,
      loadDeadlineMs: this.loadTimeoutMs > 0 ? this.loadTimeoutMs : DEFAULT_LOAD_TIMEOUT_MS,
      handlerDeadlineMs: this.timeoutMs > 0 ? this.timeoutMs : DEFAULT_HANDLER_TIMEOUT_MS,
      onStopped: (reason) => {
        const record = this.records.find((candidate) => candidate.path === source.path);
        if (record) {
          record.state = "failed";
          record.handlers.clear();
        }
        this.report(source, "background", "terminated", reason);
      },
    });
    return this.activate(source, factory, true);
  }

  /** Runs a factory given in code (a built-in or a test's) as an extension. */
  addExtension(name: string, factory: ExtensionFactory): Promise<LoadedExtension | undefined> {
    return this.activate({ name, path: `inline:${name}`, origin: "inline" }, factory);
  }

  /** The loaded extensions, in load order. */
  get extensions(): LoadedExtension[] {
    return this.records.map((record) => this.describe(record));
  }

  /**
   * Sets (or, with `undefined`, removes) the host session methods act on. Removing a bound
   * host means the session shut down: from then on session calls, `exec`, `registerTool`
   * and `registerCommand` are refused with `host_unavailable`, and programs `exec` started
   * are stopped. The next bind lifts that.
   */
  bindHost(host: ExtensionHost | undefined): void {
    if (host) {
      this.shutDown = false;
      if (this.lifetime.signal.aborted) this.lifetime = new AbortController();
    } else if (this.host) {
      // The session shut down: refuse further calls and stop the programs extensions run.
      this.shutDown = true;
      this.lifetime.abort();
    }
    this.host = host;
  }

  /**
   * Sets (or, with `undefined`, removes) how extensions talk to the user. Without one, or
   * with one that is not `interactive`, `ctx.hasUI` is false and requests resolve to
   * `undefined` at once.
   */
  bindUI(ui: ExtensionUIProvider | undefined): void {
    this.ui = ui;
  }

  /** Whether extensions can ask the user now (`ctx.hasUI`). */
  get hasUI(): boolean {
    return hasInteractiveUI(this.ui);
  }

  /**
   * Sets (or removes) the app's session actions behind `ctx.compact`, `ctx.newSession`,
   * `ctx.fork`, `ctx.navigateTree`, `ctx.model` and the others. `AgentHost` binds itself.
   */
  bindSessionActions(actions: ExtensionSessionActions | undefined): void {
    this.actions = actions;
  }

  /**
   * How an app shows a `custom_message`: the lines of its type's renderer, or `undefined`
   * for the default view (no renderer, a failing renderer) or a hidden message
   * (`display: false`). A renderer that throws or returns something else than text is
   * reported (`renderer`) and the default view is used.
   */
  renderMessage(
    message: RenderableMessage,
    options: Partial<MessageRenderOptions> = {},
  ): RenderedMessage | undefined {
    return this.renderers.render(message, { expanded: false, width: 80, ...options });
  }

  /**
   * A `custom_message` as the HTML export shows it (the `html` target, full view): the
   * renderer's markup, or its lines as text, with the extension that rendered it;
   * `undefined` for the default view. It fits `@arbor/html-export`'s `renderCustomMessage`.
   */
  renderForExport(message: ExportableMessage): ExportRendering | undefined {
    const rendered = this.renderMessage(
      {
        customType: message.customType,
        content: message.content as RenderableMessage["content"],
        display: message.display,
        ...(message.details !== undefined ? { details: message.details } : {}),
      },
      { target: "html", expanded: true, width: 100 },
    );
    if (!rendered) return undefined;
    return rendered.html !== undefined
      ? { html: rendered.html, by: rendered.extensionName }
      : { text: rendered.lines.join("\n"), by: rendered.extensionName };
  }

  /** The `custom_message` types extensions render, in registration order. */
  getMessageRendererTypes(): string[] {
    return this.renderers.types();
  }

  /** Listens to the progress of every running extension tool; returns a remover. */
  onToolUpdate(listener: ToolUpdateListener): () => void {
    this.toolUpdateListeners.add(listener);
    return () => this.toolUpdateListeners.delete(listener);
  }

  /** Adds an error listener; returns a function that removes it. */
  onError(listener: ExtensionErrorListener): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  /** Tells whether any extension handles an event, so hot paths can skip building it. */
  hasHandlers(type: ExtensionEventName): boolean {
    return this.records.some((record) => (record.handlers.get(type)?.length ?? 0) > 0);
  }

  /**
   * Calls every handler of the event in order and combines their results (see the class
   * notes). Never rejects because of an extension.
   */
  async emit<E extends ExtensionEvent>(
    event: E,
    options: EmitOptions = {},
  ): Promise<ExtensionEventOutcomeMap[E["type"]]> {
    const type: E["type"] = event.type;
    const fold = startFold<E["type"]>(event as never);
    const schema = (extensionEventResultSchemas as Partial<Record<ExtensionEventName, z.ZodType>>)[
      type
    ];
    chain: for (const record of [...this.records]) {
      for (const handler of [...(record.handlers.get(type) ?? [])]) {
        if (record.state !== "active") break;
        const ctx = this.context(record, options.signal);
        const call = await callExtension(
          record.owner,
          type,
          `the ${type} handler`,
          () => handler(fold.current() as never, ctx),
          // Waiting for the user (a handler's own question, or one queued behind another's)
          // does not count against the handler's deadline.
          { ...this.policy(record), hold: this.userWait },
        );
        if (call.status === "error") {
          this.report(
            record,
            type,
            "threw",
            `the ${type} handler threw: ${describeError(call.error)}`,
          );
          continue;
        }
        if (call.status === "timeout") {
          this.report(
            record,
            type,
            "timeout",
            `the ${type} handler did not finish in ${this.timeoutMs} ms`,
          );
          continue;
        }
        if (!schema || call.value === undefined || call.value === null) continue;
        const parsed = schema.safeParse(call.value);
        if (!parsed.success) {
          const why = z.prettifyError(parsed.error);
          this.report(
            record,
            type,
            "invalid_return",
            `the ${type} handler returned an invalid value: ${why}`,
          );
          continue;
        }
        if (fold.apply(parsed.data, record.name) === "stop") break chain;
      }
    }
    return fold.outcome() as ExtensionEventOutcomeMap[E["type"]];
  }

  /** The registered tools, in registration order. */
  getTools(): RegisteredTool[] {
    return this.capabilities.listTools();
  }

  /**
   * The metadata blocks extensions require beside every final report
   * ({@link ExtensionAPI.requireFinalMeta}), in registration order; those of a disabled
   * extension are left out.
   */
  getFinalMetaRequirements(): RegisteredFinalMeta[] {
    return this.finalMeta.list();
  }

  /** The registered commands, in registration order. */
  getCommands(): RegisteredCommand[] {
    return this.capabilities.listCommands();
  }

  /**
   * Validates the arguments and runs a registered tool. Unknown tools, invalid arguments
   * and thrown errors become error results for the model; an invalid return value is also
   * reported as an `extension_error`.
   */
  executeTool(
    name: string,
    args: unknown,
    options: ToolExecutionOptions,
  ): Promise<ToolExecutionResult> {
    return this.capabilities.executeTool(name, args, options);
  }

  /** Runs a registered command (`name` with or without its slash); failures are reported. */
  runCommand(
    name: string,
    args: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<CommandOutcome> {
    return this.capabilities.runCommand(name, args, options);
  }

  private async activate(
    source: ExtensionSource,
    factory: ExtensionFactory,
    selfTimed = false,
  ): Promise<LoadedExtension | undefined> {
    const record: ExtensionRecord = {
      ...source,
      state: "loading",
      selfTimed,
      owner: this.ownerOf(source),
      handlers: new Map(),
      pendingTools: [],
      pendingCommands: [],
      pendingFinalMeta: [],
      pendingRenderers: [],
    };
    const api = createExtensionApi(record, {
      cwd: this.cwd,
      host: () => this.requireHost(),
      session: () => this.sessionView(),
      addTool: (tool) => this.capabilities.addTool(record, tool),
      addCommand: (name, command) => this.capabilities.addCommand(record, name, command),
      addFinalMeta: (definition) => this.finalMeta.add(record, definition),
      addRenderer: (customType, renderer) => this.renderers.add(record, customType, renderer),
      isShutDown: () => this.shutDown,
      lifetimeSignal: () => this.lifetime.signal,
    });
    const call = await callExtension(
      record.owner,
      "load",
      "the factory",
      () => factory(api),
      this.policy(record),
    );
    if (call.status !== "ok") {
      record.state = "failed";
      if (call.status === "timeout")
        this.report(
          record,
          "load",
          "timeout",
          `the factory did not finish in ${this.timeoutMs} ms`,
        );
      else
        this.report(
          record,
          "load",
          "load_failed",
          `the factory threw: ${describeError(call.error)}`,
        );
      return undefined;
    }
    record.state = "active";
    this.records.push(record);
    for (const tool of record.pendingTools.splice(0)) this.capabilities.addTool(record, tool);
    for (const { name, command } of record.pendingCommands.splice(0))
      this.capabilities.addCommand(record, name, command);
    for (const definition of record.pendingFinalMeta.splice(0))
      this.finalMeta.add(record, definition);
    for (const { customType, renderer } of record.pendingRenderers.splice(0))
      this.renderers.add(record, customType, renderer);
    return this.describe(record);
  }

  private context(record: ExtensionRecord, signal: AbortSignal | undefined): ExtensionContext {
    return createExtensionContext(
      {
        extensionName: record.name,
        cwd: this.cwd,
        session: () => this.sessionView(),
        ui: () => this.ui,
        actions: () => this.actions,
        uiTimeoutMs: this.options.uiTimeoutMs ?? DEFAULT_UI_TIMEOUT_MS,
        timers: this.timers,
        nextUIRequestId: this.options.generateId ?? (() => crypto.randomUUID()),
        lifetime: this.lifetime.signal,
      },
      { signal, hold: this.userWait },
    );
  }

  private commandContext(
    record: ExtensionRecord,
    signal: AbortSignal | undefined,
  ): ExtensionCommandContext {
    return createCommandContext(this.context(record, signal), () => this.actions);
  }

  private describe(record: ExtensionRecord): LoadedExtension {
    return {
      name: record.name,
      path: record.path,
      origin: record.origin,
      events: [...record.handlers.entries()]
        .filter(([, list]) => list.length > 0)
        .map(([event]) => event),
      ...this.capabilities.ownedBy(record),
    };
  }

  private requireHost(): ExtensionHost {
    if (this.shutDown)
      throw new ExtensionApiError(
        "host_unavailable",
        "the session has shut down; nothing can act on it any more",
      );
    if (!this.host)
      throw new ExtensionApiError(
        "host_unavailable",
        "no session is active yet; act on the session from an event handler such as session_start",
      );
    return this.host;
  }

  private policy(record?: ExtensionRecord): ExtensionCallPolicy {
    return {
      timeoutMs: record?.selfTimed ? 0 : this.timeoutMs,
      timers: this.timers,
      blockReportMs: this.blockReportMs,
    };
  }

  private ownerOf(source: { name: string; path: string }): ExtensionOwner {
    return {
      name: source.name,
      path: source.path,
      report: (event, kind, error) => this.report(source, event, kind, error),
    };
  }

  private sessionView(): ReadonlySessionView {
    return copyingSessionView(this.requireHost().session);
  }

  private reportProblem(problem: DiscoveryProblem): void {
    this.report({ name: problem.name, path: problem.path }, "load", "load_failed", problem.error);
  }

  private report(
    extension: { name: string; path: string },
    event: ExtensionErrorEvent["event"],
    kind: ExtensionErrorEvent["kind"],
    error: string,
  ): void {
    const report: ExtensionErrorEvent = {
      type: "extension_error",
      extensionName: extension.name,
      extensionPath: extension.path,
      event,
      kind,
      error,
    };
    for (const listener of [...this.errorListeners]) {
      try {
        listener(report);
      } catch {
        // A failing listener must not stop the others or the session.
      }
    }
  }
}
