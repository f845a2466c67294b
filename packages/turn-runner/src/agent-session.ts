import {
  type ImagePart,
  type Model,
  REASONING_LEVELS,
  type ReasoningLevel,
} from "@arbor/providers";
import type { Session, SessionStorage } from "@arbor/session-store";
import type { AgentSessionOptions } from "./agent-session-options.js";
import type { AgentTool } from "./agent-tool.js";
import { AgentCompaction, type AgentCompactionOutcome } from "./compaction/agent-compaction.js";
import { ContextGuard } from "./context-guard.js";
import {
  AgentBusyError,
  AgentClosedError,
  type AgentResult,
  type AgentRun,
  InvalidAgentOptionsError,
  InvalidThinkingLevelError,
  runAncestry,
} from "./contracts/index.js";
import { AgentExtensions } from "./extensions/agent-extensions.js";
import { extensionCompactionHooks } from "./extensions/compaction-hooks.js";
import { ExtensionHooks } from "./extensions/extension-hooks.js";
import { FINAL_REPORT_TOOL_NAME, ReportContract } from "./final-report.js";
import type { AgentOptionGroups } from "./options/agent-option-groups.js";
import { groupAgentOptions } from "./options/group-agent-options.js";
import { checkPromptImages } from "./prompt-input.js";
import { type RunContext, servingModel } from "./run/run-context.js";
import { NoExtensionHooks, type RunHooks } from "./run/run-hooks.js";
import { TASK_STATUS_TOOL_NAME, taskStatusTool } from "./run/task-status-tool.js";
import { RunControl } from "./run-control.js";
import { RunEvents } from "./run-events.js";
import { type RunState, ZERO_USAGE } from "./run-state.js";
import { RunTrace } from "./run-trace.js";
import { recordWorkingDirectory } from "./session-records.js";
import { TargetPool } from "./target-pool.js";
import { applyToolOutputCap } from "./tool-output/apply-tool-output-cap.js";
import type { ToolOutputStore } from "./tool-output/tool-output-store.js";
import {
  chosenModel,
  type NavigateTreeOptions,
  navigateTree,
  type TreeNavigation,
} from "./tree-navigation.js";
import { restoreTtsr } from "./ttsr-interrupt.js";
import { runTurns } from "./turn-loop.js";

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
 * const result = await run.result; // { success, reason?, message?, runId, turns, usage, cost, session }
 * ```
 */
export class AgentSession {
  /** The options, grouped by what they are, defaults applied, frozen at construction. */
  private readonly options: AgentOptionGroups;
  /** The session prompts persist into: the one given, or the last fork. */
  private currentSession: Session;
  private readonly pool: TargetPool;
  private readonly tools = new Map<string, AgentTool>();
  /** Where capped tool output goes (the `toolOutput` option); disposed on `shutdown()`. */
  private readonly toolOutputStore: ToolOutputStore | undefined;
  private control: RunControl | undefined;
  /** The state of the running prompt, while one runs. */
  private runState: RunState | undefined;
  private runResult: Promise<AgentResult> | undefined;
  private shutDown = false;
  /** Whether `shutdown()` closes the current session (`ownsSession`, or a fork the agent made). */
  private sessionOwned: boolean;
  /** The final report a run must deliver, when `outputSchema` is set. */
  private readonly reportContract: ReportContract | undefined;
  private readonly contextGuard: ContextGuard;
  private readonly compaction: AgentCompaction;
  /** The extensions' part in runs: no-op hooks without `extensions`. */
  private readonly hooks: RunHooks;
  /** The hooks of `extensions`, when set (`setModel` tells them of the change). */
  private readonly extensionHooks: ExtensionHooks | undefined;
  private readonly extensionControls: AgentExtensions | undefined;

  constructor(flatOptions: AgentSessionOptions) {
    const options = groupAgentOptions(flatOptions);
    const { definition, policy, host } = options;
    this.options = options;
    this.currentSession = options.session.session;
    this.pool = new TargetPool(definition.targets);
    const capped = definition.toolOutput
      ? applyToolOutputCap(definition.tools, definition.toolOutput)
      : undefined;
    this.toolOutputStore = capped?.store;
    for (const tool of capped?.tools ?? definition.tools) {
      if (this.tools.has(tool.name)) {
        throw new InvalidAgentOptionsError(
          "tools",
          `two tools are named "${tool.name}"; tool names must be unique`,
        );
      }
      this.tools.set(tool.name, tool);
    }
    if (definition.taskStatusTool) {
      if (this.tools.has(TASK_STATUS_TOOL_NAME)) {
        throw new InvalidAgentOptionsError(
          "tools",
          `a tool is named "${TASK_STATUS_TOOL_NAME}", which is reserved for task status reports when taskStatusTool is set`,
        );
      }
      this.tools.set(
        TASK_STATUS_TOOL_NAME,
        taskStatusTool((taskStatus) => {
          const state = this.runState;
          state?.channel.push({
            type: "agent_update",
            turnIndex: state.turnIndex,
            kind: "task_status",
            message: taskStatus.message,
            taskStatus,
          });
        }),
      );
    }
    if (host.ttsr && options.session.restoreInjectedRules) {
      restoreTtsr(host.ttsr, this.currentSession);
    }
    this.sessionOwned = options.session.ownsSession;
    this.contextGuard = new ContextGuard(policy.contextGuard, definition.maxOutputTokens);
    this.reportContract =
      definition.outputSchema === undefined
        ? undefined
        : new ReportContract(definition.outputSchema);
    if (this.reportContract && this.tools.has(FINAL_REPORT_TOOL_NAME)) {
      throw new InvalidAgentOptionsError(
        "tools",
        `a tool is named "${FINAL_REPORT_TOOL_NAME}", which is reserved for the final report when outputSchema is set`,
      );
    }
    this.followChosenModel();
    // Extensions take part in automatic compactions too, unless the caller passed its own hooks.
    const compactionHooks =
      host.compactionHooks ?? (host.extensions && extensionCompactionHooks(host.extensions));
    this.compaction = new AgentCompaction({
      session: () => this.session,
      promptLimit: (model) => this.contextGuard.limitFor(model),
      ...(policy.compaction ? { settings: policy.compaction } : {}),
      ...(compactionHooks ? { hooks: compactionHooks } : {}),
      ...(policy.generateTitle !== undefined ? { generateTitle: policy.generateTitle } : {}),
    });
    this.extensionHooks = this.createExtensionHooks();
    this.extensionControls = this.extensionHooks && new AgentExtensions(this.extensionHooks);
    this.hooks =
      this.extensionHooks ??
      new NoExtensionHooks({
        tools: this.tools,
        appendMessage: (message) => this.session.appendMessage(message),
      });
  }

  /** The extensions given as `extensions`, for what only the app drives (lifecycle, commands, tree). */
  get extensions(): AgentExtensions | undefined {
    return this.extensionControls;
  }

  /** The session this agent persists into. */
  get session(): Session {
    return this.currentSession;
  }

  /** Whether a prompt is running. */
  get running(): boolean {
    return this.control !== undefined;
  }

  /**
   * Sends a user message (the text, then any images) and runs turns until the model answers without tool calls, a
   * limit is hit or the run is aborted. The result always resolves; it rejects only when a
   * model or the storage breaks its contract (a model that throws, a failed append).
   * @throws AgentBusyError when a prompt is already running; AgentClosedError when the agent
   *   was shut down; InvalidPromptError when an image is invalid (no base64 data, not image/*)
   */
  prompt(text: string, images?: readonly ImagePart[]): AgentRun {
    return this.startRun(text, images === undefined ? undefined : checkPromptImages(images));
  }

  /** Starts a run for a prompt, or (no text: a run extensions trigger) from the session as it is. */
  private startRun(text: string | undefined, images?: readonly ImagePart[]): AgentRun {
    if (this.shutDown) {
      throw new AgentClosedError("prompt", "the agent was shut down; create a new AgentSession");
    }
    if (this.control) {
      throw new AgentBusyError(
        "prompt",
        "a prompt is already running; await its result or abort() it first",
      );
    }
    const control = new RunControl();
    const ancestry = Object.freeze(
      runAncestry(this.options.host.ancestry, this.options.seams.generateRunId(), this.session.id),
    );
    const trace = new RunTrace(ancestry, this.options.host.telemetry);
    this.control = control;
    const state: RunState = {
      channel: new RunEvents(ancestry, (event) => trace.observe(event)),
      trace,
      control,
      signal: control.signal,
      usage: { ...ZERO_USAGE },
      cost: 0,
      finalTurn: undefined,
      finalReport: undefined,
      contextExhausted: false,
      overLimitRequests: 0,
      turnIndex: 0,
      unpricedReported: new Set(),
      queuedRules: new Map(),
    };
    this.runState = state;
    const run: RunContext = {
      options: this.options,
      session: this.session,
      state,
      pool: this.pool,
      tools: this.tools,
      reportContract: this.reportContract,
      contextGuard: this.contextGuard,
      compaction: this.compaction,
      hooks: this.hooks,
    };
    const result = runTurns(run, text, images).finally(() => {
      state.channel.close();
      state.trace.close();
      this.control = undefined;
      this.runState = undefined;
      this.runResult = undefined;
    });
    this.runResult = result;
    const events = state.channel;
    return {
      runId: events.runId,
      events: events.subscribe(),
      result,
      subscribe: (options) => events.subscribe(options),
    };
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
   * @throws AgentBusyError while a prompt is running
   */
  async compact(
    customInstructions?: string,
    signal?: AbortSignal,
  ): Promise<AgentCompactionOutcome> {
    if (this.control) {
      throw new AgentBusyError("compact", "cannot compact while a prompt is running");
    }
    return this.compaction.compact(this.model, "manual", {
      ...(customInstructions !== undefined ? { customInstructions } : {}),
      ...(signal ? { signal } : {}),
    });
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
    await this.session.flush();
    // Extensions hear of it while the session is still open (they may store their state).
    await this.extensionControls?.shutdown();
    const closing = this.options.host.resources.map(async (resource) => resource.close());
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
    return servingModel({ pool: this.pool, options: this.options });
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
   * @throws AgentBusyError while a prompt runs
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
   * @throws AgentBusyError while a prompt runs; InvalidThinkingLevelError for an unknown level
   */
  async setThinkingLevel(level: ReasoningLevel): Promise<string> {
    this.assertIdle("setThinkingLevel");
    if (!REASONING_LEVELS.includes(level)) {
      throw new InvalidThinkingLevelError(level, REASONING_LEVELS);
    }
    return this.session.appendThinkingLevelChange(level);
  }

  /**
   * Moves the session's leaf to `targetId` (`null`: before the first entry), so the next
   * prompt continues from there. With `summarize`, the branch left is first summarized by
   * the `summarizeBranch` option into a `branch_summary` entry, which becomes the leaf.
   * @throws AgentBusyError while a prompt runs; InvalidAgentOptionsError for `summarize`
   *   without `summarizeBranch`; EntryNotFoundError when the entry does not exist
   */
  async navigateTree(
    targetId: string | null,
    options: NavigateTreeOptions = {},
  ): Promise<TreeNavigation> {
    this.assertIdle("navigateTree");
    const moved = await navigateTree(this.session, targetId, options, {
      runner: this.options.host.extensions,
      summarizeBranch: this.options.host.summarizeBranch,
      model: this.model,
    });
    this.followChosenModel();
    if (moved.cancelled) {
      const leaf = this.session.getLeafId();
      return { oldLeafId: leaf, newLeafId: leaf };
    }
    const { oldLeafId, newLeafId, summaryEntryId } = moved;
    return { oldLeafId, newLeafId, ...(summaryEntryId === undefined ? {} : { summaryEntryId }) };
  }

  /**
   * Copies the path from the root to `entryId` into a new session (`Session.fork`: beside a
   * session file, or into `storage`) and continues in it: later prompts persist there. The
   * agent owns the fork and closes it on `shutdown()` (or on the next fork).
   * @returns the new session
   * @throws AgentBusyError while a prompt runs
   */
  async fork(entryId: string, options: { storage?: SessionStorage } = {}): Promise<Session> {
    this.assertIdle("fork");
    const previous = this.session;
    const forked = await previous.fork(entryId, options);
    this.currentSession = forked;
    if (this.sessionOwned) await previous.close();
    this.sessionOwned = true;
    this.followChosenModel();
    await this.extensionControls?.start("fork", previous.id);
    return forked;
  }

  /**
   * Records that the agent now works in `directory` (CodeTether's context switch): when it
   * differs from the path's last one (or the session header's `cwd`), a shown
   * `custom_message` of type `arbor.context-switch` saying `Context changed to: <dir>` is
   * stored, which the model reads with the next prompt.
   * @returns the id of the new entry, or undefined when the directory did not change
   * @throws AgentBusyError while a prompt runs; InvalidAgentOptionsError for an empty path
   */
  async setWorkingDirectory(directory: string): Promise<string | undefined> {
    this.assertIdle("setWorkingDirectory");
    return recordWorkingDirectory(this.session, directory);
  }

  /** Refuses a change to the agent while it is shut down or a prompt runs. */
  private assertIdle(method: string): void {
    if (this.shutDown) throw new AgentClosedError(method, `${method}(): the agent was shut down`);
    if (this.control)
      throw new AgentBusyError(method, `${method}() cannot run while a prompt runs`);
  }

  /** Makes the model chosen last on the path (a `model_change`) the current target. */
  private followChosenModel(): void {
    const chosen = chosenModel(this.session);
    if (chosen) this.pool.selectByName(chosen.provider, chosen.modelId);
  }

  /** The hooks through which `extensions` take part in runs, when there are any. */
  private createExtensionHooks(): ExtensionHooks | undefined {
    const { extensions, summarizeBranch } = this.options.host;
    if (!extensions) return undefined;
    const agent = this;
    return new ExtensionHooks(extensions, {
      get session() {
        return agent.session;
      },
      tools: this.tools,
      get model() {
        return agent.model;
      },
      summarizeBranch,
      get running() {
        return agent.running;
      },
      continueRun: () => this.startRun(undefined),
      appendMessage: (message) => this.session.appendMessage(message),
      now: () => this.options.seams.now(),
    });
  }
}

export type { AgentSessionOptions } from "./agent-session-options.js";
