import type { ImagePart, TextPart, ToolDefinition } from "@arbor/providers";
import { toolFromZod } from "@arbor/providers";
import { z } from "zod";

/** What a tool hands back: plain text, or text and image parts. */
export type ToolOutput = string | Array<TextPart | ImagePart>;

/** What a running tool is told about its call. */
export interface ToolExecutionContext {
  /** Fires when the run is aborted or the tool's timeout passes. */
  signal: AbortSignal;
  /** The id of the model's tool call. */
  toolCallId: string;
}

/** A local tool the model may call; its arguments are described and validated by zod. */
export interface AgentTool<P extends z.ZodObject = z.ZodObject> {
  /** 1-64 of `[a-zA-Z0-9_-]`, unique among the session's tools. */
  name: string;
  description: string;
  parameters: P;
  /**
   * A JSON schema of the arguments object sent to the model instead of the one derived
   * from `parameters`, for tools described in JSON Schema (MCP tools). `parameters` still
   * validates the arguments, so such a tool pairs it with a validator of this schema.
   */
  inputJsonSchema?: Record<string, unknown>;
  /** Overrides the session's `toolTimeoutMs` for this tool. */
  timeoutMs?: number;
  /**
   * Still offered on a forced final turn (stop, context limit, max turns), beside the report
   * tool, for a call that is itself a way to answer (a router handing the request on).
   * Never offered while a report is locked for its metadata. Default false.
   */
  availableOnFinalTurn?: boolean;
  execute(args: z.output<P>, context: ToolExecutionContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * Declares a tool with its argument types inferred from the zod schema.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: "add",
 *   description: "Adds two numbers",
 *   parameters: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export function defineTool<P extends z.ZodObject>(tool: AgentTool<P>): AgentTool<P> {
  return tool;
}

/** The tool definitions sent to the model for a set of tools. */
export function toolDefinitions(tools: readonly AgentTool[]): ToolDefinition[] {
  return tools.map((tool) =>
    tool.inputJsonSchema === undefined
      ? toolFromZod(tool.name, tool.description, tool.parameters)
      : { name: tool.name, description: tool.description, parameters: tool.inputJsonSchema },
  );
}

/** The outcome of one tool call, ready to be persisted as a `toolResult` message. */
export interface ToolCallOutcome {
  content: Array<TextPart | ImagePart>;
  isError: boolean;
}

const TIMED_OUT = Symbol("timed out");

const text = (value: string): Array<TextPart> => [{ type: "text", text: value }];

/**
 * Runs one tool call: validates the arguments, enforces the timeout and turns every
 * failure (unknown tool, invalid arguments, a throw, a timeout) into an error result the
 * model can read. It never rejects.
 */
export async function runToolCall(
  tool: AgentTool | undefined,
  call: { id: string; name: string; arguments: Record<string, unknown> },
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<ToolCallOutcome> {
  if (!tool) {
    return { content: text(`Unknown tool "${call.name}".`), isError: true };
  }
  const parsed = tool.parameters.safeParse(call.arguments);
  if (!parsed.success) {
    return {
      content: text(`Invalid arguments for ${tool.name}:\n${z.prettifyError(parsed.error)}`),
      isError: true,
    };
  }
  const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    const output = await Promise.race([
      Promise.resolve().then(() =>
        tool.execute(parsed.data, { signal: controller.signal, toolCallId: call.id }),
      ),
      timedOut,
    ]);
    if (output === TIMED_OUT) {
      controller.abort(new Error("timeout"));
      return { content: text(`Tool ${tool.name} timed out after ${timeoutMs} ms.`), isError: true };
    }
    return { content: typeof output === "string" ? text(output) : output, isError: false };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { content: text(`Tool ${tool.name} failed: ${message}`), isError: true };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

/** The names of the tools a forced final turn still offers (see `availableOnFinalTurn`). */
export function finalTurnToolNames(tools: Iterable<AgentTool>): string[] {
  return [...tools].filter((tool) => tool.availableOnFinalTurn === true).map((tool) => tool.name);
}
