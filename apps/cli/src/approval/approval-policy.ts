import type { AllowRule, ApprovalMode } from "./approval-schema.js";

/** Tools that only read: never asked about. */
const READ_ONLY_TOOLS = new Set(["read", "grep", "find", "ls", "read_tool_output"]);
/** Tools that change files. */
const EDIT_TOOLS = new Set(["write", "edit"]);

/** A call waiting for a decision. */
export interface ApprovalRequest {
  tool: string;
  toolCallId: string;
  /** What the call does, in one line: the command, or the path written. */
  subject: string;
  /** More to show before asking (a diff, the content head); may be empty. */
  detail: string;
  args: Record<string, unknown>;
}

/** What the policy says about a call before anyone is asked. */
export type PolicyVerdict = { decision: "allow"; by: "mode" | "rule" } | { decision: "ask" };

/** Shell syntax that chains, substitutes or redirects: a prefix rule never covers it. */
const SHELL_COMPOSITION = /[;&|<>`\n]|\$\(/;

/** Whether a remembered rule covers a call. */
export function ruleAllows(
  rule: AllowRule,
  request: Pick<ApprovalRequest, "tool" | "args">,
): boolean {
  if (rule.tool !== request.tool) return false;
  if (rule.command === undefined && rule.commandPrefix === undefined) return true;
  const command = typeof request.args.command === "string" ? request.args.command.trim() : "";
  if (rule.command !== undefined) return command === rule.command.trim();
  const prefix = (rule.commandPrefix ?? "").trim();
  if (SHELL_COMPOSITION.test(command)) return false;
  return command === prefix || command.startsWith(`${prefix} `);
}

/**
 * Decides whether a tool call runs without asking: read-only tools always; `write` and
 * `edit` in `auto-edit`, `sandbox` and `yolo`; `bash` in `sandbox` unless the call asks to
 * run outside the sandbox; everything in `yolo`; otherwise when a remembered rule of the
 * project covers it.
 */
export function approvalVerdict(
  mode: ApprovalMode,
  request: Pick<ApprovalRequest, "tool" | "args">,
  rules: readonly AllowRule[],
): PolicyVerdict {
  if (READ_ONLY_TOOLS.has(request.tool)) return { decision: "allow", by: "mode" };
  if (mode === "yolo") return { decision: "allow", by: "mode" };
  if ((mode === "auto-edit" || mode === "sandbox") && EDIT_TOOLS.has(request.tool))
    return { decision: "allow", by: "mode" };
  // The bash tool runs in bubblewrap in this mode; a call asking to leave it is asked.
  if (mode === "sandbox" && request.tool === "bash" && request.args.outside_sandbox !== true)
    return { decision: "allow", by: "mode" };
  if (rules.some((rule) => ruleAllows(rule, request))) return { decision: "allow", by: "rule" };
  return { decision: "ask" };
}

/** The rule "always" remembers for a call: the exact command for `bash`, else the tool. */
export function ruleFor(request: Pick<ApprovalRequest, "tool" | "args">): AllowRule {
  if (request.tool === "bash" && typeof request.args.command === "string") {
    return { tool: "bash", command: request.args.command.trim() };
  }
  return { tool: request.tool };
}

/** Whether a tool is one approvals apply to (it is not read-only). */
export function needsApprovalCheck(tool: string): boolean {
  return !READ_ONLY_TOOLS.has(tool);
}
