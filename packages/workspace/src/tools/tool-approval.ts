import {
  type AgentTool,
  defineTool,
  type ToolExecutionContext,
  type ToolOutput,
} from "@arbor/turn-runner";

/** A tool call about to run, as the app's approval policy sees it. */
export interface ToolCallRequest {
  /** The tool's name (`bash`, `write`, …). */
  tool: string;
  /** The id of the model's tool call. */
  toolCallId: string;
  /** The call's validated arguments. */
  args: Record<string, unknown>;
}

/**
 * The app's approval policy: resolves when a call may run, throws when it may not (the
 * model reads the error's message as the tool's result). The workspace tools never decide
 * this themselves; an app without a policy passes none and every call runs.
 */
export type ApproveToolCall = (request: ToolCallRequest) => Promise<void>;

/** How long a call may wait for an approval before the turn runner gives up on it (a day). */
export const APPROVAL_WAIT_MS = 86_400_000;

/**
 * The tools, each asking `approve` before it runs. Waiting for the answer does not count
 * against a tool's timeout: the wrapped tool tells the turn runner {@link APPROVAL_WAIT_MS},
 * and the tool's own `timeoutMs` is enforced here once the call may run.
 *
 * @param tools the tools to guard (the workspace tools, MCP tools, an extension's tools)
 * @param approve the app's policy
 * @param guarded which tools to guard; the others are returned as they are. Default: all.
 */
export function withApproval(
  tools: readonly AgentTool[],
  approve: ApproveToolCall,
  guarded: (tool: string) => boolean = () => true,
): AgentTool[] {
  return tools.map((tool) =>
    !guarded(tool.name)
      ? tool
      : defineTool({
          ...tool,
          timeoutMs: APPROVAL_WAIT_MS,
          execute: async (args, context) => {
            await approve({
              tool: tool.name,
              toolCallId: context.toolCallId,
              args: args as Record<string, unknown>,
            });
            return runWithTimeout(tool, args, context);
          },
        }),
  );
}

/** Runs an approved tool with its own timeout, as the turn runner would have. */
async function runWithTimeout(
  tool: AgentTool,
  args: unknown,
  context: ToolExecutionContext,
): Promise<ToolOutput> {
  if (tool.timeoutMs === undefined) return tool.execute(args as never, context);
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(new Error("timeout"));
      reject(new Error(`timed out after ${tool.timeoutMs} ms`));
    }, tool.timeoutMs);
  });
  try {
    return await Promise.race([
      Promise.resolve().then(() =>
        tool.execute(args as never, { ...context, signal: controller.signal }),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onAbort);
  }
}
