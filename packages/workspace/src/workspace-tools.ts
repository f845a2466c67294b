import type { AgentTool } from "@arbor/turn-runner";
import type { CommandSandbox, SearchEngine } from "./operations/index.js";
import {
  type ApproveToolCall,
  bashTool,
  commandEnvironment,
  editTool,
  findTool,
  grepTool,
  lsTool,
  readTool,
  withApproval,
  writeTool,
} from "./tools/index.js";

/** How long one call of a file or search tool may take before it is an error result. */
export const WORKSPACE_TOOL_TIMEOUT_MS = 15_000;

/** Options of {@link workspaceTools}. */
export interface WorkspaceToolsOptions {
  /** The app's environment; commands get it without credential variables. */
  env?: NodeJS.ProcessEnv;
  /**
   * The app's approval policy, asked before every call of every tool (read-only ones
   * included: the policy decides which need a yes). Without it every call runs.
   */
  approve?: ApproveToolCall;
  /** The ripgrep command for grep and find, or false for the JS search. Default `rg`. */
  ripgrep?: SearchEngine["ripgrep"];
  /** Milliseconds between SIGTERM and SIGKILL when a command is stopped. */
  killGraceMs?: number;
  /** Runs `bash` commands in bubblewrap (found with `probeBubblewrap`). */
  sandbox?: CommandSandbox;
}

/**
 * The coding tools an app gives the model: `read`, `write`, `edit`, `bash`, `grep`, `find`
 * and `ls`. Every path is confined to the real path of the working directory (symlinks
 * out of it are refused), reads and outputs are capped, FIFOs, devices and sockets are
 * refused, and every call times out.
 */
export function workspaceTools(root: string, options: WorkspaceToolsOptions = {}): AgentTool[] {
  const engine = options.ripgrep === undefined ? {} : { ripgrep: options.ripgrep };
  const tools = [
    readTool(root, WORKSPACE_TOOL_TIMEOUT_MS),
    writeTool(root, WORKSPACE_TOOL_TIMEOUT_MS),
    editTool(root, WORKSPACE_TOOL_TIMEOUT_MS),
    bashTool(root, {
      env: commandEnvironment(options.env ?? {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    }),
    grepTool(root, WORKSPACE_TOOL_TIMEOUT_MS, engine),
    findTool(root, WORKSPACE_TOOL_TIMEOUT_MS, engine),
    lsTool(root, WORKSPACE_TOOL_TIMEOUT_MS),
  ];
  return options.approve === undefined ? tools : withApproval(tools, options.approve);
}
