import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import { editWorkspaceFile, MAX_WRITE_BYTES, writeWorkspaceFile } from "../operations/index.js";

/**
 * `write`: creates or replaces a whole text file of the workspace (missing folders are
 * made inside it); a symlink, FIFO, device or folder at the path is refused.
 */
export function writeTool(root: string, timeoutMs: number): AgentTool {
  return defineTool({
    name: "write",
    description: `Writes a whole text file in the working directory (created with its folders if missing, replaced otherwise; at most ${MAX_WRITE_BYTES} bytes). Prefer edit for changes to an existing file.`,
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      content: z.string().describe("The complete new content of the file"),
    }),
    timeoutMs,
    async execute({ path, content }) {
      const { bytes, created } = await writeWorkspaceFile(root, path, content);
      return `${created ? "Created" : "Wrote"} ${path} (${bytes} bytes).`;
    },
  }) as unknown as AgentTool;
}

/**
 * `edit`: replaces one exact occurrence of a text in a file of the workspace; the text must
 * match exactly once. The result is a unified diff of the change.
 */
export function editTool(root: string, timeoutMs: number): AgentTool {
  return defineTool({
    name: "edit",
    description:
      "Replaces text in a file of the working directory: oldText must match the file exactly (whitespace included) and exactly once; include enough surrounding lines to make it unique. Returns a diff.",
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      oldText: z.string().describe("The exact text to replace; must occur once in the file"),
      newText: z.string().describe("The text to put in its place"),
    }),
    timeoutMs,
    async execute({ path, oldText, newText }, { signal }) {
      const { diff, line } = await editWorkspaceFile(root, path, oldText, newText, { signal });
      return `Edited ${path} at line ${line}:\n${diff}`;
    },
  }) as unknown as AgentTool;
}
