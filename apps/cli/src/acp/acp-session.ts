import {
  type ContentBlock,
  type PromptResponse,
  RequestError,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import type { HostRun } from "@arbor/orchestration";
import type { SessionStore } from "@arbor/session-store";
import type { ApprovalMode } from "../approval/index.js";
import type { ArborConfig } from "../config/index.js";
import { configuredModelList } from "../config/index.js";
import type { CliAgent } from "../host/index.js";
import { availableCommands, parseSlashCommand, runArborCommand } from "./acp-commands.js";
import { LiveUpdates, stopReasonOf } from "./live-updates.js";
import { MAX_PROMPT_BYTES, promptInput } from "./prompt-input.js";
import { replayUpdates } from "./replay-updates.js";

/** The approval modes, as the editor's session modes. */
export const APPROVAL_MODES: readonly { id: ApprovalMode; name: string; description: string }[] = [
  { id: "ask", name: "Ask", description: "File edits and commands need a yes" },
  { id: "auto-edit", name: "Auto-edit", description: "File edits run; commands need a yes" },
  { id: "yolo", name: "Yolo", description: "Everything runs without asking" },
];

/** What an {@link AcpSession} works with. */
export interface AcpSessionOptions {
  cwd: string;
  agent: CliAgent;
  store: SessionStore;
  config: ArborConfig;
  env: NodeJS.ProcessEnv;
  /** The configured provider the session started on (its name in the config). */
  providerName: string;
  /** Sends one update of this session to the editor. */
  send: (update: SessionUpdate) => Promise<void>;
  /** Writes a line to the log (stderr). */
  log: (message: string) => void;
}

/**
 * One ACP session: an agent host on one Arbor session. A prompt streams its run as
 * updates and ends with the run's stop reason; a cancel aborts the run (the partial answer
 * is stored, marked aborted); slash commands run Arbor's tree commands.
 */
export class AcpSession {
  private running: { run: HostRun | undefined; controller: AbortController } | undefined;

  constructor(private readonly options: AcpSessionOptions) {}

  get id(): string {
    return this.options.agent.host.session.id;
  }

  get cwd(): string {
    return this.options.cwd;
  }

  get agent(): CliAgent {
    return this.options.agent;
  }

  /** The signal of the prompt running now, aborted by a cancel. */
  get promptSignal(): AbortSignal | undefined {
    return this.running?.controller.signal;
  }

  /** The session's modes (the approval modes) and which is current. */
  modes(): SessionModeState {
    return {
      currentModeId: this.options.agent.approvals.options.mode,
      availableModes: APPROVAL_MODES.map((mode) => ({ ...mode })),
    };
  }

  /** The session's options: the model, one of the configured ones. */
  configOptions(): SessionConfigOption[] {
    const { id } = this.options.agent.host.state().model;
    const listed = configuredModelList(this.options.config, this.options.env).map((m) => m.spec);
    const own = `${this.options.providerName}/${id}`;
    const current = listed.includes(own)
      ? own
      : (listed.find((spec) => spec.endsWith(`/${id}`)) ?? own);
    const values = listed.includes(current) ? listed : [current, ...listed];
    return [
      {
        id: "model",
        name: "Model",
        category: "model",
        type: "select",
        currentValue: current,
        options: values.map((value) => ({ value, name: value })),
      },
    ];
  }

  /** Switches the approval mode. */
  async setMode(modeId: string): Promise<void> {
    const mode = APPROVAL_MODES.find((candidate) => candidate.id === modeId);
    if (!mode) {
      throw RequestError.invalidParams(
        { modeId },
        `"${modeId}" is not a mode; the modes are ${APPROVAL_MODES.map((m) => m.id).join(", ")}`,
      );
    }
    this.options.agent.approvals.setMode(mode.id);
    await this.options.send({ sessionUpdate: "current_mode_update", currentModeId: mode.id });
  }

  /** Sets a session option (the model). */
  async setConfigOption(configId: string, value: unknown): Promise<SessionConfigOption[]> {
    if (configId !== "model" || typeof value !== "string") {
      throw RequestError.invalidParams({ configId }, `"${configId}" is not an option of Arbor`);
    }
    try {
      await this.options.agent.host.setModel(value);
    } catch (error) {
      throw RequestError.invalidParams({ value }, messageOf(error));
    }
    return this.configOptions();
  }

  /** Tells the editor the session's commands. */
  async announceCommands(): Promise<void> {
    await this.options.send({
      sessionUpdate: "available_commands_update",
      availableCommands: availableCommands(this.options.agent.host),
    });
  }

  /** Sends the path to the leaf as updates, as it was streamed. */
  async replay(): Promise<void> {
    const path = this.options.agent.host.session.getBranch();
    const sending = new SendQueue(this.options.send);
    for (const update of replayUpdates(path, this.options.cwd)) await sending.push(update);
    await sending.drain();
  }

  /**
   * Runs a prompt (or a slash command) to its end.
   * @throws RequestError for a prompt over the size limit, a busy session or a failed run
   */
  async prompt(blocks: readonly ContentBlock[]): Promise<PromptResponse> {
    const input = promptInput(blocks);
    const bytes = Buffer.byteLength(input.text);
    if (bytes > MAX_PROMPT_BYTES) {
      throw RequestError.invalidParams(
        { bytes, limit: MAX_PROMPT_BYTES },
        `the prompt has ${bytes} bytes; arbor acp takes at most ${MAX_PROMPT_BYTES} (attach large files as resource links instead)`,
      );
    }
    if (this.running) {
      throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
    }
    const controller = new AbortController();
    this.running = { run: undefined, controller };
    try {
      const command = input.images.length === 0 ? parseSlashCommand(input.text) : undefined;
      if (command) {
        const answered = await this.command(command.name, command.args, controller.signal);
        if (answered) return answered;
      }
      return await this.follow(this.options.agent.host.prompt(input.text, input.images));
    } finally {
      this.running = undefined;
    }
  }

  /** Aborts the running prompt; the run stores its partial answer, marked aborted. */
  cancel(): void {
    if (!this.running) return;
    this.running.controller.abort();
    if (this.running.run) this.running.run.abort();
    else this.options.agent.host.abort();
  }

  /** Aborts what runs and closes the host (the session's lock is released). */
  async close(): Promise<void> {
    this.cancel();
    await this.options.agent.close();
  }

  private async command(
    name: string,
    args: string,
    signal: AbortSignal,
  ): Promise<PromptResponse | undefined> {
    const { host } = this.options.agent;
    const say = (text: string) =>
      this.options.send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    try {
      const text = await runArborCommand(name, args, {
        host,
        store: this.options.store,
        config: this.options.config,
        env: this.options.env,
      });
      if (text !== undefined) {
        await say(text);
        if (name === "model") {
          await this.options.send({
            sessionUpdate: "config_option_update",
            configOptions: this.configOptions(),
          });
        }
        return { stopReason: "end_turn" };
      }
      const extension = host.commands().some((c) => c.name === name);
      if (!extension) return undefined;
      const { outcome, run } = await host.runCommand(name, args, { signal });
      if (run) return await this.follow(run);
      if (outcome.status === "failed") await say(`/${name} failed: ${outcome.error}\n`);
      return { stopReason: signal.aborted ? "cancelled" : "end_turn" };
    } catch (error) {
      await say(`/${name}: ${messageOf(error)}\n`);
      return { stopReason: "end_turn" };
    }
  }

  private async follow(run: HostRun): Promise<PromptResponse> {
    if (this.running) this.running.run = run;
    const { host } = this.options.agent;
    const live = new LiveUpdates(() => host.session, this.options.cwd, host.agentPath);
    const sending = new SendQueue(this.options.send);
    for await (const event of run.events) {
      for (const update of live.updatesFor(event)) await sending.push(update);
    }
    await sending.drain();
    const result = await run.result;
    const stopReason = stopReasonOf(result, live.lastStopReason);
    if (stopReason === undefined) {
      this.options.log(`run ended without an answer: ${result.reason} ${result.message ?? ""}`);
      throw RequestError.internalError(
        { reason: result.reason },
        `the run ended without an answer (${result.reason}): ${result.message ?? ""}`,
      );
    }
    return {
      stopReason,
      usage: {
        inputTokens: result.usage.input,
        outputTokens: result.usage.output,
        cachedReadTokens: result.usage.cacheRead,
        cachedWriteTokens: result.usage.cacheWrite,
        totalTokens:
          result.usage.input +
          result.usage.output +
          result.usage.cacheRead +
          result.usage.cacheWrite,
      },
    };
  }
}

/** Updates written without waiting for each, at most {@link SendQueue.LIMIT} in flight. */
class SendQueue {
  static readonly LIMIT = 256;
  private inFlight: Promise<unknown>[] = [];

  constructor(private readonly send: (update: SessionUpdate) => Promise<void>) {}

  /** Sends an update; waits for the ones in flight when there are too many. */
  async push(update: SessionUpdate): Promise<void> {
    // The connection writes in call order, so not waiting keeps the order.
    this.inFlight.push(this.send(update).catch(() => undefined));
    if (this.inFlight.length >= SendQueue.LIMIT) await this.drain();
  }

  /** Waits until every update sent so far is written. */
  async drain(): Promise<void> {
    const pending = this.inFlight;
    this.inFlight = [];
    await Promise.all(pending);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
