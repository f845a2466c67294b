import type { ExtensionRunner, ToolResultContent } from "@arbor/extensions-api";
import type { ToolDefinition } from "@arbor/providers";
import { type AgentTool, runToolCall } from "../agent-tool.js";
import { emitIsolated } from "./isolated-emit.js";

/** A tool call as the model asked for it. */
export interface ModelToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A tool call's result as it is stored and sent to the model. */
export interface ToolRunOutcome {
  content: ToolResultContent[];
  isError: boolean;
  /** Tool data stored beside the result and never sent to the model. */
  details?: unknown;
}

/** Options of {@link runToolCallWithExtensions}. */
export interface ToolRunOptions {
  signal: AbortSignal;
  /** Default timeout of a call, overridable per built-in tool. */
  timeoutMs: number;
}

/**
 * The definitions of the tools extensions registered, for the model request. A built-in
 * tool of the same name shadows an extension's: the agent's own tools come first.
 */
export function extensionToolDefinitions(
  runner: ExtensionRunner,
  builtinTools: ReadonlyMap<string, AgentTool>,
): ToolDefinition[] {
  return runner
    .getTools()
    .filter((tool) => !builtinTools.has(tool.name))
    .map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.jsonSchema,
    }));
}

/**
 * Runs one tool call with extensions in the loop: `tool_call` first (a block becomes an
 * error result carrying the reason, and the tool does not run), then the built-in tool or
 * the extension tool of that name, then `tool_result`, whose handlers may change what is
 * stored and sent. It never rejects.
 */
export async function runToolCallWithExtensions(
  runner: ExtensionRunner,
  call: ModelToolCall,
  builtinTools: ReadonlyMap<string, AgentTool>,
  options: ToolRunOptions,
): Promise<ToolRunOutcome> {
  const emitOptions = { signal: options.signal };
  const decision = await emitIsolated(
    runner,
    { type: "tool_call", toolCallId: call.id, toolName: call.name, input: call.arguments },
    emitOptions,
  );
  let outcome: ToolRunOutcome;
  if (decision.blocked) outcome = { content: textContent(decision.reason), isError: true };
  else outcome = await execute(runner, call, builtinTools, options);
  const changed = await emitIsolated(
    runner,
    {
      type: "tool_result",
      toolCallId: call.id,
      toolName: call.name,
      input: call.arguments,
      content: outcome.content,
      isError: outcome.isError,
      ...(outcome.details === undefined ? {} : { details: outcome.details }),
    },
    emitOptions,
  );
  if (!changed.changed) return outcome;
  return {
    content: changed.content,
    isError: changed.isError,
    ...(changed.details === undefined ? {} : { details: changed.details }),
  };
}

async function execute(
  runner: ExtensionRunner,
  call: ModelToolCall,
  builtinTools: ReadonlyMap<string, AgentTool>,
  options: ToolRunOptions,
): Promise<ToolRunOutcome> {
  const builtin = builtinTools.get(call.name);
  const isExtensionTool = runner.getTools().some((tool) => tool.name === call.name);
  if (builtin || !isExtensionTool) return runToolCall(builtin, call, options);
  return executeExtensionTool(runner, call, options);
}

/** Runs an extension's tool under the session's tool timeout and the run's abort signal. */
async function executeExtensionTool(
  runner: ExtensionRunner,
  call: ModelToolCall,
  options: ToolRunOptions,
): Promise<ToolRunOutcome> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<ToolRunOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("timeout"));
      resolve({
        content: textContent(`Tool ${call.name} timed out after ${options.timeoutMs} ms.`),
        isError: true,
      });
    }, options.timeoutMs);
  });
  try {
    const run = runner.executeTool(call.name, call.arguments, {
      toolCallId: call.id,
      signal: controller.signal,
    });
    const result = await Promise.race([run, timedOut]);
    return {
      content: result.content,
      isError: result.isError,
      ...(result.details === undefined ? {} : { details: result.details }),
    };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

function textContent(text: string): ToolResultContent[] {
  return [{ type: "text", text }];
}
