import { readdir, readFile, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";

const MAX_FILE_BYTES = 256 * 1024;

/** Resolves a path the model gave inside the workspace, refusing anything outside it. */
function insideWorkspace(root: string, path: string): string {
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(`${path} is outside the working directory`);
  }
  return full;
}

/**
 * The read-only tools `arbor` gives the model: `read_file` and `list_files`, both confined
 * to the working directory.
 */
export function workspaceTools(root: string): AgentTool[] {
  const readFileTool = defineTool({
    name: "read_file",
    description: "Reads a UTF-8 text file in the working directory.",
    parameters: z.object({ path: z.string().describe("Path relative to the working directory") }),
    execute: async ({ path }) => {
      const full = insideWorkspace(root, path);
      const info = await stat(full);
      if (info.size > MAX_FILE_BYTES) {
        return `${path} has ${info.size} bytes; only files up to ${MAX_FILE_BYTES} bytes are read.`;
      }
      return readFile(full, "utf8");
    },
  });
  const listFilesTool = defineTool({
    name: "list_files",
    description: "Lists the entries of a directory in the working directory.",
    parameters: z.object({ path: z.string().default(".").describe("Directory, default '.'") }),
    execute: async ({ path }) => {
      const entries = await readdir(insideWorkspace(root, path), { withFileTypes: true });
      return entries
        .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
        .sort()
        .join("\n");
    },
  });
  return [readFileTool as unknown as AgentTool, listFilesTool as unknown as AgentTool];
}
