import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import {
  type CommandSandbox,
  DEFAULT_COMMAND_TIMEOUT_S,
  MAX_COMMAND_TIMEOUT_S,
  runWorkspaceCommand,
  type WorkspaceCommandResult,
} from "../operations/index.js";

/** The line after a command's output that says how it ended. */
export function commandEnding(result: WorkspaceCommandResult, timeoutS: number): string {
  const notes: string[] = [];
  if (result.binary) notes.push("[the output held binary data; NUL bytes are shown as \uFFFD]");
  if (result.droppedBytes > 0)
    notes.push(`[${result.droppedBytes} more bytes of output were dropped]`);
  if (result.timedOut)
    notes.push(`[timed out after ${timeoutS} s; the command and its process group were stopped]`);
  else if (result.aborted) notes.push("[stopped by the user; the process group was stopped]");
  else if (result.signal) notes.push(`[killed by ${result.signal}]`);
  else notes.push(`[exit code ${result.exitCode}]`);
  return notes.join("\n");
}

/** Options of {@link bashTool}. */
export interface BashToolOptions {
  /** The environment commands run with (the app passes its own, without API keys). */
  env: Record<string, string>;
  /** Milliseconds between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /**
   * Runs commands in bubblewrap. The model may then ask for one command to run outside
   * (`outside_sandbox: true`, for the network or files outside the workspace), which the
   * app's approvals decide about.
   */
  sandbox?: CommandSandbox;
}

const SANDBOX_NOTE =
  " Commands run in a sandbox: the working directory is writable, the rest of the file system read-only, /tmp private, and there is no network. Set outside_sandbox to true only for a command that needs more (the network, files elsewhere); the user is asked first.";

/**
 * `bash`: runs a shell command in a folder of the workspace with a timeout; a timeout or
 * an abort stops its whole process group (SIGKILL after a grace period for a command that
 * ignores SIGTERM). Long output is kept whole behind a handle by the session's output cap.
 */
export function bashTool(root: string, options: BashToolOptions): AgentTool {
  const { sandbox } = options;
  return defineTool({
    name: "bash",
    description: `Runs a bash command in the working directory (or a folder of it) and returns its output (stdout and stderr) and exit code. Default timeout ${DEFAULT_COMMAND_TIMEOUT_S} s, at most ${MAX_COMMAND_TIMEOUT_S} s; stdin is closed, so nothing interactive.${sandbox ? SANDBOX_NOTE : ""}`,
    parameters: z.object({
      ...(sandbox
        ? {
            outside_sandbox: z
              .boolean()
              .optional()
              .describe(
                "Run outside the sandbox (asks the user); only when the sandbox blocks the command",
              ),
          }
        : {}),
      command: z.string().min(1).describe("The command, run with bash -c"),
      cwd: z.string().optional().describe("Folder to run in, relative to the working directory"),
      timeout: z
        .number()
        .int()
        .min(1)
        .max(MAX_COMMAND_TIMEOUT_S)
        .optional()
        .describe(`Seconds before the command is stopped (default ${DEFAULT_COMMAND_TIMEOUT_S})`),
    }),
    // The command's own timeout stops it first; this only catches a tool that hangs after.
    timeoutMs: (MAX_COMMAND_TIMEOUT_S + 30) * 1000,
    async execute(args, { signal }) {
      const { command, cwd, timeout } = args;
      const outside = (args as { outside_sandbox?: boolean }).outside_sandbox === true;
      const timeoutS = timeout ?? DEFAULT_COMMAND_TIMEOUT_S;
      const result = await runWorkspaceCommand(root, command, {
        ...(sandbox && !outside ? { sandbox } : {}),
        timeoutS,
        signal,
        env: options.env,
        ...(cwd !== undefined ? { cwd } : {}),
        ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      });
      const ending = commandEnding(result, timeoutS);
      return result.output === "" ? ending : `${result.output.replace(/\n?$/, "\n")}${ending}`;
    },
  }) as unknown as AgentTool;
}
