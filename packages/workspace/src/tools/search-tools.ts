import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import {
  findWorkspaceFiles,
  listWorkspaceDir,
  MAX_FIND_RESULTS,
  MAX_GREP_MATCHES,
  MAX_LIST_DEPTH,
  MAX_LIST_ENTRIES,
  type SearchEngine,
  searchWorkspace,
} from "../operations/index.js";

/** `grep`: lines matching a pattern in the workspace's files, as `path:line:text`. */
export function grepTool(root: string, timeoutMs: number, engine: SearchEngine = {}): AgentTool {
  return defineTool({
    name: "grep",
    description: `Searches file contents in the working directory for a regular expression (or literal text) and returns path:line:text, at most ${MAX_GREP_MATCHES} lines. Skips binary, hidden and git-ignored files.`,
    parameters: z.object({
      pattern: z.string().min(1).describe("Regular expression (or text with literal: true)"),
      path: z.string().default(".").describe("Folder or file to search, default '.'"),
      glob: z.string().optional().describe("Only files matching this glob, e.g. '*.ts'"),
      ignoreCase: z.boolean().default(false),
      literal: z.boolean().default(false).describe("Match the pattern as plain text"),
    }),
    timeoutMs,
    execute: ({ pattern, path, glob, ignoreCase, literal }, { signal }) =>
      searchWorkspace(
        root,
        { pattern, path, ignoreCase, literal, ...(glob !== undefined ? { glob } : {}) },
        { ...engine, signal },
      ),
  }) as unknown as AgentTool;
}

/** `find`: paths of the workspace's files matching a glob. */
export function findTool(root: string, timeoutMs: number, engine: SearchEngine = {}): AgentTool {
  return defineTool({
    name: "find",
    description: `Finds files in the working directory by a glob on the name ('*.ts') or the path ('src/**/*.test.ts'), at most ${MAX_FIND_RESULTS} paths. Skips hidden and git-ignored files.`,
    parameters: z.object({
      pattern: z.string().min(1).describe("Glob, e.g. '*.md' or 'src/**/index.ts'"),
      path: z.string().default(".").describe("Folder to search, default '.'"),
    }),
    timeoutMs,
    execute: ({ pattern, path }, { signal }) =>
      findWorkspaceFiles(root, pattern, path, { ...engine, signal }),
  }) as unknown as AgentTool;
}

/** `ls`: a folder of the workspace, folders with `/`, symlinks with `@` (never followed). */
export function lsTool(root: string, timeoutMs: number): AgentTool {
  return defineTool({
    name: "ls",
    description: `Lists a folder of the working directory (folders end in /, symbolic links in @), at most ${MAX_LIST_ENTRIES} entries.`,
    parameters: z.object({
      path: z.string().default(".").describe("Folder, default '.'"),
      depth: z
        .number()
        .int()
        .min(1)
        .max(MAX_LIST_DEPTH)
        .default(1)
        .describe(`Levels to list, 1 (default) to ${MAX_LIST_DEPTH}`),
    }),
    timeoutMs,
    execute: ({ path, depth }, { signal }) => listWorkspaceDir(root, path, { depth, signal }),
  }) as unknown as AgentTool;
}
