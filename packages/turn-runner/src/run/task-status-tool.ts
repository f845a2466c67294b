import { type AgentTool, defineTool } from "../agent-tool.js";
import { type TaskStatus, taskStatusSchema } from "../contracts/index.js";

/** The name of the built-in tool through which the model reports its task's status. */
export const TASK_STATUS_TOOL_NAME = "task_status";

/**
 * The built-in `task_status` tool: the model reports where its task stands and `report`
 * hands the status on (as an `agent_update` event of the running prompt). Reporting does
 * not end the turn's work: the model goes on with its other calls.
 */
export function taskStatusTool(report: (status: TaskStatus) => void): AgentTool {
  return defineTool({
    name: TASK_STATUS_TOOL_NAME,
    description:
      "Report where your task stands, for the people watching: status (in_progress, blocked or completed), a one- or two-sentence message of what you are doing now, and optionally what is done and what is pending. Call it alongside your other tool calls when the state of the task changes; it does not answer the user.",
    parameters: taskStatusSchema,
    execute: (status) => {
      report(status);
      return "Status noted.";
    },
  });
}
