import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import { type AgentTool, defineTool } from "@arbor/orchestration";
import {
  commandEnding,
  DEFAULT_COMMAND_TIMEOUT_S,
  linesOf,
  MAX_COMMAND_OUTPUT_BYTES,
  MAX_COMMAND_TIMEOUT_S,
  MAX_WRITE_BYTES,
  replacementDiff,
  WORKSPACE_TOOL_TIMEOUT_MS,
  WorkspaceToolError,
} from "@arbor/workspace";
import { z } from "zod";

/** What the client tools need: the connection, the session and its working directory. */
export interface ClientToolsOptions {
  client: AgentContext;
  /** The ACP session (its id is known once the session is open). */
  session: { id: string };
  cwd: string;
  capabilities: ClientCapabilities | undefined;
  /** Tells the editor the terminal a bash call runs in, so it shows it in the tool call. */
  showTerminal: (toolCallId: string, terminalId: string) => Promise<void>;
}

/**
 * The coding tools the editor serves, when it offers them: `read`, `write` and `edit`
 * through `fs/read_text_file` and `fs/write_text_file` (the editor's unsaved buffers are
 * what the model reads and changes), `bash` through `terminal/create` (the editor shows the
 * command running). They take the local tools' names and parameters, and keep them to the
 * session's working directory. A client that offers none gets none: the local tools run.
 */
export function clientTools(options: ClientToolsOptions): AgentTool[] {
  const fs = options.capabilities?.fs;
  const tools: AgentTool[] = [];
  if (fs?.readTextFile) tools.push(clientReadTool(options));
  if (fs?.readTextFile && fs.writeTextFile) {
    tools.push(clientWriteTool(options), clientEditTool(options));
  }
  if (options.capabilities?.terminal) tools.push(clientBashTool(options));
  return tools;
}

/**
 * The absolute path of a path the model gave, refused unless it lies in the working
 * directory (after following the symbolic links of the part that exists).
 * @throws WorkspaceToolError `outside_workspace` or `invalid_path`
 */
export async function confinedPath(cwd: string, path: string): Promise<string> {
  if (path.includes("\0") || path.trim() === "") {
    throw new WorkspaceToolError("invalid_path", `${JSON.stringify(path)} is not a file path.`);
  }
  const root = await realpath(cwd);
  const absolute = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
  const real = await realExisting(absolute);
  if (!inside(root, real)) throw outside(path);
  return absolute;
}

async function realExisting(path: string): Promise<string> {
  let head = path;
  let tail = "";
  for (;;) {
    try {
      const real = await realpath(head);
      return tail === "" ? real : `${real}${sep}${tail}`;
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      tail =
        tail === ""
          ? head.slice(parent.length + 1)
          : `${head.slice(parent.length + 1)}${sep}${tail}`;
      head = parent;
    }
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function outside(path: string): WorkspaceToolError {
  return new WorkspaceToolError(
    "outside_workspace",
    `Refused: ${JSON.stringify(path)} is outside the working directory.`,
  );
}

async function readThroughClient(options: ClientToolsOptions, path: string): Promise<string> {
  const response = await options.client.request("fs/read_text_file", {
    sessionId: options.session.id,
    path,
  });
  return response.content;
}

function clientReadTool(options: ClientToolsOptions): AgentTool {
  return defineTool({
    name: "read",
    description:
      "Reads a text file of the working directory as the editor has it (unsaved changes included): whole, or lines offset..offset+limit-1.",
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      offset: z.number().int().min(1).optional().describe("First line to read (1-based)"),
      limit: z.number().int().min(1).optional().describe("Number of lines to read"),
    }),
    timeoutMs: WORKSPACE_TOOL_TIMEOUT_MS,
    async execute({ path, offset, limit }) {
      const text = await readThroughClient(options, await confinedPath(options.cwd, path));
      return linesOf(path, text, { offset, limit, partial: false });
    },
  }) as unknown as AgentTool;
}

function clientWriteTool(options: ClientToolsOptions): AgentTool {
  return defineTool({
    name: "write",
    description: `Writes a whole text file in the working directory through the editor (created if missing, replaced otherwise; at most ${MAX_WRITE_BYTES} bytes). Prefer edit for changes to an existing file.`,
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      content: z.string().describe("The complete new content of the file"),
    }),
    timeoutMs: WORKSPACE_TOOL_TIMEOUT_MS,
    async execute({ path, content }) {
      const bytes = Buffer.byteLength(content);
      if (bytes > MAX_WRITE_BYTES) {
        throw new WorkspaceToolError(
          "too_large",
          `Refused: the content has ${bytes} bytes; write takes at most ${MAX_WRITE_BYTES}.`,
        );
      }
      const absolute = await confinedPath(options.cwd, path);
      await options.client.request("fs/write_text_file", {
        sessionId: options.session.id,
        path: absolute,
        content,
      });
      return `Wrote ${path} (${bytes} bytes).`;
    },
  }) as unknown as AgentTool;
}

function clientEditTool(options: ClientToolsOptions): AgentTool {
  return defineTool({
    name: "edit",
    description:
      "Replaces text in a file of the working directory, as the editor has it: oldText must match the file exactly (whitespace included) and exactly once. Returns a diff.",
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      oldText: z.string().describe("The exact text to replace; must occur once in the file"),
      newText: z.string().describe("The text to put in its place"),
    }),
    timeoutMs: WORKSPACE_TOOL_TIMEOUT_MS,
    async execute({ path, oldText, newText }) {
      if (oldText === "") {
        throw new WorkspaceToolError(
          "invalid_path",
          "oldText is empty; give the exact text to replace.",
        );
      }
      const absolute = await confinedPath(options.cwd, path);
      const before = await readThroughClient(options, absolute);
      const index = before.indexOf(oldText);
      if (index < 0) {
        throw new WorkspaceToolError(
          "no_match",
          `oldText was not found in ${JSON.stringify(path)}; it must match the file exactly. Read the file again and copy the text.`,
        );
      }
      if (before.indexOf(oldText, index + 1) >= 0) {
        throw new WorkspaceToolError(
          "ambiguous_match",
          `oldText occurs more than once in ${JSON.stringify(path)}; include more of the surrounding lines.`,
        );
      }
      const after = before.slice(0, index) + newText + before.slice(index + oldText.length);
      await options.client.request("fs/write_text_file", {
        sessionId: options.session.id,
        path: absolute,
        content: after,
      });
      const { diff, line } = replacementDiff(path, before, index, oldText, newText);
      return `Edited ${path} at line ${line}:\n${diff}`;
    },
  }) as unknown as AgentTool;
}

function clientBashTool(options: ClientToolsOptions): AgentTool {
  return defineTool({
    name: "bash",
    description: `Runs a bash command in the working directory (or a folder of it) in the editor's terminal and returns its output and exit code. Default timeout ${DEFAULT_COMMAND_TIMEOUT_S} s, at most ${MAX_COMMAND_TIMEOUT_S} s.`,
    parameters: z.object({
      command: z.string().min(1).describe("The command, run with bash -c"),
      cwd: z.string().optional().describe("Folder to run in, relative to the working directory"),
      timeout: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_S).optional(),
    }),
    timeoutMs: (MAX_COMMAND_TIMEOUT_S + 30) * 1000,
    async execute({ command, cwd, timeout }, { signal, toolCallId }) {
      const timeoutS = timeout ?? DEFAULT_COMMAND_TIMEOUT_S;
      const folder = cwd === undefined ? options.cwd : await confinedPath(options.cwd, cwd);
      const terminal = await options.client.createTerminal({
        sessionId: options.session.id,
        command: "bash",
        args: ["-c", command],
        cwd: folder,
        outputByteLimit: MAX_COMMAND_OUTPUT_BYTES,
      });
      try {
        await options.showTerminal(toolCallId, terminal.id);
        let timedOut = false;
        let aborted = false;
        const stop = (why: "timeout" | "abort") => {
          if (why === "timeout") timedOut = true;
          else aborted = true;
          terminal.kill().catch(() => undefined);
        };
        const timer = setTimeout(() => stop("timeout"), timeoutS * 1000);
        const onAbort = () => stop("abort");
        signal.addEventListener("abort", onAbort, { once: true });
        let exit: { exitCode?: number | null; signal?: string | null };
        try {
          exit = await terminal.waitForExit();
        } finally {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
        }
        const output = await terminal.currentOutput();
        const ending = [
          ...(output.truncated ? ["[the terminal kept only the end of the output]"] : []),
          commandEnding(
            {
              output: output.output,
              exitCode: exit.exitCode ?? null,
              signal: (exit.signal ?? null) as NodeJS.Signals | null,
              timedOut,
              aborted,
              binary: false,
              droppedBytes: 0,
            },
            timeoutS,
          ),
        ].join("\n");
        return output.output === "" ? ending : `${output.output.replace(/\n?$/, "\n")}${ending}`;
      } finally {
        await terminal.release().catch(() => undefined);
      }
    },
  }) as unknown as AgentTool;
}
