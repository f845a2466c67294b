import { randomBytes } from "node:crypto";
import { basename } from "node:path";
import {
  type AgentDefinition,
  type AgentNode,
  definitionOf,
  type ExportableMessage,
  type ExportRendering,
  type ExtensionErrorEvent,
  guardExtensionFailures,
  type ProcessFailureSource,
} from "@arbor/orchestration";
import { ApiError } from "../errors/index.js";
import {
  type AgentCommandInfo,
  type AgentExtensionCatalogue,
  type AgentExtensionSource,
  checkAgentExtensions,
  newAgentRunner,
} from "./agent-extensions.js";
import { RunEventChannel } from "./run-event-channel.js";
import { RunExtensions } from "./run-extensions.js";
import { RunUi } from "./run-ui.js";
import type { UiAnswer } from "./ui-answer.js";

/** How many ended runs keep their UI requests, so a late answer gets 409 rather than 404. */
const ENDED_RUNS_KEPT = 256;

/** How many runs stopped before their extensions opened are remembered until they open. */
const EARLY_CANCELS_KEPT = 1024;

/** Options of {@link ServerExtensions}. */
export interface ServerExtensionsOptions {
  /** Where extension failures are reported (the server's output), beside the run's events. */
  report?: (line: string) => void;
  /** Clock seam for UI request expiry. */
  now?: () => number;
  /**
   * The process whose stray failures (a rejection nobody handles, a throwing timer) are
   * attributed to the extension that caused them and reported, instead of ending the
   * server; the current process by default. Guarded only when an agent has extensions.
   */
  process?: ProcessFailureSource;
}

/** A new UI request id: URL-safe and not guessable. */
function newUiRequestId(): string {
  return `ui_${randomBytes(12).toString("hex")}`;
}

/**
 * The extensions of the server's agents: checked once at start-up ({@link ServerExtensions.load}),
 * then loaded into a runner of their own for each run, with the run's UI over SSE.
 */
export class ServerExtensions {
  private readonly live = new Map<string, RunExtensions>();
  private readonly ended = new Map<string, RunUi>();
  /** Runs stopped or aborted while their extensions were still loading. */
  private readonly cancelledEarly = new Set<string>();

  private constructor(
    private readonly catalogues: ReadonlyMap<string, AgentExtensionCatalogue>,
    private readonly where: Pick<AgentExtensionSource, "base" | "settings">,
    private readonly options: ServerExtensionsOptions,
    private readonly unguard: () => void,
  ) {}

  /**
   * Loads every agent's extensions once, to check them and list their commands.
   * @throws ServerConfigError naming the agent, the field and the reason
   */
  static async load(
    agents: ReadonlyMap<string, AgentDefinition | AgentNode>,
    where: AgentExtensionSource,
    options: ServerExtensionsOptions = {},
  ): Promise<ServerExtensions> {
    const any = [...agents.values()].some((agent) => definitionOf(agent).extensions?.length);
    // Installed before the first import: a module's top level can leave a stray failure too.
    const unguard = any ? guardExtensionFailures(options.process ?? process) : () => undefined;
    const catalogues = new Map<string, AgentExtensionCatalogue>();
    try {
      for (const [name, agent] of agents) {
        const definition = definitionOf(agent);
        if (!definition.extensions?.length) continue;
        catalogues.set(
          name,
          await checkAgentExtensions(name, definition, where, (event) =>
            options.report?.(
              `arbor-server: agent ${name}: extension ${event.extensionName} (${event.event}, ${event.kind}): ${event.error}`,
            ),
          ),
        );
      }
    } catch (error) {
      unguard();
      throw error;
    }
    return new ServerExtensions(catalogues, where, options, unguard);
  }

  /** Stops guarding the process (the server closed). */
  close(): void {
    this.unguard();
  }

  /** Where reports go; the server sets it once it can print. */
  set report(report: ((line: string) => void) | undefined) {
    this.options.report = report;
  }

  /** The commands the agent's extensions register (none for an agent without extensions). */
  commandsOf(agent: string): readonly AgentCommandInfo[] {
    return this.catalogues.get(agent)?.commands ?? [];
  }

  /**
   * How the HTML export shows custom messages with the agent's extensions' renderers
   * (`registerMessageRenderer`); undefined for an agent without extensions.
   */
  exportRendererOf(
    agent: string,
  ): ((message: ExportableMessage) => ExportRendering | undefined) | undefined {
    const runner = this.catalogues.get(agent)?.runner;
    return runner && ((message) => runner.renderForExport(message));
  }

  /**
   * Loads the agent's extensions into a new runner for one run, with the run's UI.
   * @returns undefined for an agent without extensions
   * @throws ApiError `extension_load_failed` when an extension that loaded at start-up no
   *   longer does (the run fails rather than running without, say, its permission gate)
   */
  async openRun(runId: string, agent: string): Promise<RunExtensions | undefined> {
    const catalogue = this.catalogues.get(agent);
    if (!catalogue) return undefined;
    const channel = new RunEventChannel(runId);
    const loading: ExtensionErrorEvent[] = [];
    let loaded = false;
    const runner = newAgentRunner(this.where, {
      generateId: newUiRequestId,
      onError: (event) => {
        if (!loaded) loading.push(event);
        channel.push({
          type: "extension_error",
          extensionName: event.extensionName,
          event: event.event,
          kind: event.kind,
          error: event.error,
        });
        this.options.report?.(
          `arbor-server: run ${runId}: extension ${event.extensionName} (${event.event}, ${event.kind}): ${event.error}`,
        );
      },
    });
    for (const path of catalogue.paths) {
      await runner.load({ name: basename(path), path, origin: "path" });
    }
    loaded = true;
    const failed = loading.find((event) => event.event === "load");
    if (failed) {
      throw new ApiError(
        500,
        "extension_load_failed",
        `extension ${failed.extensionName} of agent "${agent}" did not load: ${failed.error}`,
      );
    }
    const ui = new RunUi({
      emit: (event) => channel.push(event),
      maxWaitMs: this.where.settings.uiTimeoutMs,
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    const run = new RunExtensions(runner, ui, channel);
    this.live.set(runId, run);
    // A stop or abort that came while the extensions loaded still applies: a command then
    // runs with its signal aborted, so its questions resolve to no answer at once.
    if (this.cancelledEarly.delete(runId)) run.cancel();
    return run;
  }

  /**
   * Answers a UI request of a run of this process.
   * @throws ApiError 404, 409 or 400; see {@link RunUi.answer}
   */
  answer(runId: string, requestId: string, answer: UiAnswer): void {
    const ui = this.live.get(runId)?.ui ?? this.ended.get(runId);
    if (!ui)
      throw new ApiError(404, "ui_request_not_found", `no UI request "${requestId}" in this run`);
    ui.answer(requestId, answer);
  }

  /**
   * Withdraws a run's open UI requests and a command's signal (it was stopped or aborted);
   * for a run whose extensions are still loading, as soon as they are loaded.
   */
  cancel(runId: string): void {
    const run = this.live.get(runId);
    if (run) {
      run.cancel();
      return;
    }
    this.cancelledEarly.add(runId);
    if (this.cancelledEarly.size > EARLY_CANCELS_KEPT) {
      this.cancelledEarly.delete(this.cancelledEarly.values().next().value as string);
    }
  }

  /** The run ended: its UI closes, and its requests are remembered for late answers. */
  closeRun(runId: string): void {
    this.cancelledEarly.delete(runId);
    const run = this.live.get(runId);
    if (!run) return;
    run.close();
    this.live.delete(runId);
    this.ended.set(runId, run.ui);
    if (this.ended.size > ENDED_RUNS_KEPT) {
      this.ended.delete(this.ended.keys().next().value as string);
    }
  }
}
