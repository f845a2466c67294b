import type { ImagePart, TextPart } from "@arbor/providers";
import type { AgentTool, ToolOutput } from "../agent-tool.js";
import type { ToolOutputStore } from "./tool-output-store.js";

/** The name of the built-in tool that pages through stored outputs. */
export const READ_TOOL_OUTPUT_TOOL_NAME = "read_tool_output";
/** Default largest tool output, in characters, handed to the model unchanged. */
export const DEFAULT_TOOL_OUTPUT_MAX_CHARS = 20_000;
/** Default length of the head excerpt that replaces an oversize output. */
export const DEFAULT_TOOL_OUTPUT_EXCERPT_CHARS = 2_000;

/** Options of {@link capToolOutput}. */
export interface ToolOutputCapOptions {
  /** Where oversize outputs go; page through them with {@link readToolOutputTool}. */
  store: ToolOutputStore;
  /** Text outputs longer than this (all text parts together) are stored. Default 20,000. */
  maxChars?: number;
  /** Characters of the head shown in place of a stored output. Default 2,000 (at most `maxChars`). */
  excerptChars?: number;
}

const textLength = (output: ToolOutput): number =>
  typeof output === "string"
    ? output.length
    : output.reduce((sum, part) => sum + (part.type === "text" ? part.text.length : 0), 0);

const fullText = (output: ToolOutput): string =>
  typeof output === "string"
    ? output
    : output
        .filter((part): part is TextPart => part.type === "text")
        .map((part) => part.text)
        .join("\n");

/**
 * Wraps a tool so that an output with more text than `maxChars` is written to the store
 * and replaced by its head and a note telling the model the handle and how to read on
 * with `read_tool_output`. Images are kept as they are; an oversize error message is
 * capped the same way. When the store cannot write, the output is cut instead and the
 * note says so, so the call still succeeds.
 *
 * @example
 * ```ts
 * const store = new ToolOutputStore();
 * const tools = [capToolOutput(grep, { store, maxChars: 10_000 }), readToolOutputTool(store)];
 * ```
 */
export function capToolOutput<T extends AgentTool>(tool: T, options: ToolOutputCapOptions): T {
  const maxChars = options.maxChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS;
  const excerptChars = Math.min(
    options.excerptChars ?? DEFAULT_TOOL_OUTPUT_EXCERPT_CHARS,
    maxChars,
  );
  const capText = async (text: string): Promise<string> => {
    const excerpt = text.slice(0, excerptChars);
    let note: string;
    try {
      const handle = await options.store.save(text);
      const next = JSON.stringify({ handle, offset: excerpt.length, limit: maxChars });
      note = `[Output truncated: characters 0-${excerpt.length} of ${text.length} are shown. The full output is stored as ${handle}; read on with ${READ_TOOL_OUTPUT_TOOL_NAME} ${next}.]`;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      note = `[Output cut to ${excerpt.length} of ${text.length} characters; the rest could not be stored (${reason}).]`;
    }
    return `${excerpt}\n\n${note}`;
  };
  return {
    ...tool,
    async execute(args, context) {
      let output: ToolOutput;
      try {
        output = await tool.execute(args, context);
      } catch (error) {
        // a failure's message reaches the model too, so an oversize one is capped alike
        const message = error instanceof Error ? error.message : String(error);
        if (message.length <= maxChars) throw error;
        throw new Error(await capText(message), { cause: error });
      }
      if (textLength(output) <= maxChars) return output;
      const capped = await capText(fullText(output));
      if (typeof output === "string") return capped;
      const images = output.filter((part): part is ImagePart => part.type === "image");
      return [{ type: "text", text: capped }, ...images];
    },
  };
}
