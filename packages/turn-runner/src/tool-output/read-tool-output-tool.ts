import { z } from "zod";
import type { AgentTool } from "../agent-tool.js";
import { DEFAULT_TOOL_OUTPUT_MAX_CHARS, READ_TOOL_OUTPUT_TOOL_NAME } from "./cap-tool-output.js";
import type { ToolOutputStore } from "./tool-output-store.js";

/**
 * The built-in tool that pages through outputs stored by {@link capToolOutput}:
 * `{ handle, offset?, limit? }` returns up to `limit` characters (default and largest
 * `maxLimit`) from `offset`, after a line saying where the page sits and where the next
 * one starts. A malformed or unknown handle, a limit over `maxLimit` or an offset past
 * the end is an error result naming the problem.
 *
 * @param maxLimit - the largest page, in characters; match the cap's `maxChars`
 */
export function readToolOutputTool(
  store: ToolOutputStore,
  maxLimit: number = DEFAULT_TOOL_OUTPUT_MAX_CHARS,
) {
  const parameters = z.object({
    handle: z
      .string()
      .describe("The handle from a truncated tool result, e.g. out_0123456789abcdef"),
    offset: z.number().int().min(0).default(0).describe("First character to read"),
    limit: z
      .number()
      .int()
      .positive()
      .max(maxLimit)
      .optional()
      .describe(`Characters to read, at most ${maxLimit}`),
  });
  const tool: AgentTool<typeof parameters> = {
    name: READ_TOOL_OUTPUT_TOOL_NAME,
    description:
      "Reads part of a tool output that was too long to show in full and was stored under a handle.",
    parameters,
    async execute({ handle, offset, limit }) {
      const page = await store.read(handle, offset, limit ?? maxLimit);
      const end = page.offset + page.text.length;
      const where =
        page.nextOffset === undefined
          ? "end of output"
          : `next: ${READ_TOOL_OUTPUT_TOOL_NAME} ${JSON.stringify({ handle, offset: page.nextOffset })}`;
      return `[${handle}: characters ${page.offset}-${end} of ${page.total}; ${where}]\n${page.text}`;
    },
  };
  return tool;
}
