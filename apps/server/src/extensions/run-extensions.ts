import type { AgentHost, ExtensionRunner, HostRun, ImagePart } from "@arbor/orchestration";
import { ApiError } from "../errors/index.js";
import type { ServerRunEvent } from "../runs/server-run-event.js";
import type { RunEventChannel } from "./run-event-channel.js";
import type { RunUi } from "./run-ui.js";

/** What a run does once its agent is open: send a prompt, or run an extension command. */
export interface RunWork {
  prompt: string;
  images?: readonly ImagePart[];
  /** An extension command to run instead of the prompt; its returned text becomes the prompt. */
  command?: { name: string; args: string };
}

/** What the run service lends {@link RunExtensions.drive}. */
export interface RunHooks {
  /** Stores the run's events as they come; resolves once the stream ended and all are stored. */
  record(events: AsyncIterable<ServerRunEvent>): Promise<void>;
  /** Called with the agent's run as soon as it exists (stop and abort act on it). */
  started(run: HostRun): void;
}

/**
 * The extensions of one server run: the runner holding the agent's extensions, the run's
 * {@link RunUi} and the channel that puts the server's events (UI requests, notifications,
 * extension errors, command outcomes) into the run's event sequence.
 */
export class RunExtensions {
  private readonly lifetime = new AbortController();

  constructor(
    readonly runner: ExtensionRunner,
    readonly ui: RunUi,
    private readonly channel: RunEventChannel,
  ) {}

  /** What `AgentHost.open` takes beside the definition. */
  get hostOptions(): { extensions: ExtensionRunner; ui: RunUi } {
    return { extensions: this.runner, ui: this.ui };
  }

  /**
   * Runs the prompt or the command on the open host and records every event (the agent's
   * and the server's) through `hooks.record` until the run ended.
   * @returns the agent's run, or undefined when a command asked for no prompt
   * @throws ApiError `command_not_found` or `command_failed` for a command that did not run
   */
  async drive(host: AgentHost, work: RunWork, hooks: RunHooks): Promise<HostRun | undefined> {
    const recording = hooks.record(this.channel.events());
    // Awaited below; observed now, so a failed write is never an unhandled rejection meanwhile.
    recording.catch(() => undefined);
    const stopFollowing = host.onSessionChange((session) =>
      this.channel.push({ type: "session_switched", sessionId: session.id }),
    );
    const stopUpdates = host.onToolUpdate((update) =>
      this.channel.push({
        type: "tool_update",
        toolCallId: update.toolCallId,
        toolName: update.toolName,
        extensionName: update.extensionName,
        content: update.content,
        ...(update.details !== undefined ? { details: update.details } : {}),
      }),
    );
    try {
      const run = work.command
        ? await this.runCommand(host, work.command)
        : host.prompt(work.prompt, work.images);
      if (run) {
        hooks.started(run);
        await this.channel.pump(run.events);
      }
      return run;
    } finally {
      stopFollowing();
      stopUpdates();
      this.ui.cancelAll();
      this.channel.end();
      await recording;
    }
  }

  /** Withdraws the open UI requests and a command's signal: the run was stopped or aborted. */
  cancel(): void {
    this.lifetime.abort();
    this.ui.cancelAll();
  }

  /** The run is over: later UI requests resolve to no answer at once. */
  close(): void {
    this.lifetime.abort();
    this.ui.close();
  }

  private async runCommand(
    host: AgentHost,
    command: { name: string; args: string },
  ): Promise<HostRun | undefined> {
    const { outcome, run } = await host.runCommand(command.name, command.args, {
      signal: this.lifetime.signal,
    });
    if (outcome.status === "unknown_command") {
      throw new ApiError(404, "command_not_found", `no command "/${command.name}" for this agent`);
    }
    if (outcome.status === "failed") {
      throw new ApiError(400, "command_failed", `/${command.name} failed: ${outcome.error}`);
    }
    this.channel.push({ type: "command_end", name: command.name, status: run ? "prompt" : "done" });
    return run;
  }
}

/**
 * Sends the run's prompt, or runs its command, and records the events: through the run's
 * extensions when the agent has some, else the agent's events alone.
 * @returns the agent's run, or undefined when a command asked for no prompt
 */
export async function driveRun(
  host: AgentHost,
  work: RunWork,
  extensions: RunExtensions | undefined,
  hooks: RunHooks,
): Promise<HostRun | undefined> {
  if (extensions) return extensions.drive(host, work, hooks);
  const run = host.prompt(work.prompt, work.images);
  hooks.started(run);
  await hooks.record(run.events);
  return run;
}
