import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import { type AgentNode, subAgentToolName } from "./agent-tree.js";
import type { ConcurrencyLimit } from "./concurrency-limit.js";
import { compileInputSchema } from "./input-schema.js";
import type { AgentPlace, OrchestrationContext } from "./orchestration-context.js";

const promptParameters = z.object({
  prompt: z.string().min(1).describe("The task for the agent, with everything it needs to know"),
});

/**
 * The `agent__<name>` tool of a sub-agent: its parameters are the child's `inputSchema`
 * (default `{ prompt }`), arguments checked against it (a mismatch is an invalid-arguments
 * error result the model can correct); a call runs the child to its final report, which is the tool's
 * result. A failed child is an error result naming the outcome and why. Calls wait for a
 * slot of `limit`. A child with `timeoutMs` gets a tool timeout a second longer (so its own
 * timeout reports `timed_out` first); without, the parent's tool timeout applies.
 */
export function createSubAgentTool(
  context: () => OrchestrationContext,
  child: AgentNode,
  parent: () => AgentPlace,
  limit: ConcurrencyLimit,
): AgentTool {
  const { definition } = child;
  const description =
    definition.description ?? `Runs the ${definition.name} agent and returns its final report.`;
  const execute = async (args: Record<string, unknown>, signal: AbortSignal) => {
    const prompt =
      definition.inputSchema === undefined ? String(args.prompt) : JSON.stringify(args, null, 2);
    const place = parent();
    const run = context();
    const report = await limit.run(() => {
      if (signal.aborted) throw new Error("the call was cut before the agent started");
      return run.runChild(place, child, "subagent", { prompt, request: prompt }, false, signal);
    });
    if (report.outcome !== "succeeded") {
      throw new Error(`${report.finalAgent} ${report.outcome}: ${report.message ?? ""}`.trim());
    }
    return report.response;
  };
  const timeout =
    definition.timeoutMs === undefined ? {} : { timeoutMs: definition.timeoutMs + 1_000 };
  if (definition.inputSchema === undefined) {
    return defineTool({
      name: subAgentToolName(definition),
      description,
      ...timeout,
      parameters: promptParameters,
      execute: (args, { signal }) => execute(args, signal),
    });
  }
  const compiled = compileInputSchema(definition.inputSchema);
  const parameters = z.looseObject({}).superRefine((value, check) => {
    const problem = compiled.ok ? compiled.validate(value) : compiled.reason;
    if (problem !== undefined) check.addIssue({ code: "custom", message: problem });
  });
  return defineTool({
    name: subAgentToolName(definition),
    description,
    ...timeout,
    parameters,
    inputJsonSchema: definition.inputSchema,
    execute: (args, { signal }) => execute(args, signal),
  });
}
