import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk/unstable";
import type { ApprovalAsker, ApprovalRequest } from "../approval/index.js";
import { ruleFor } from "../approval/index.js";
import { toolCallView } from "./tool-call-view.js";

/** The choices every permission request offers, ACP's four kinds. */
export const PERMISSION_OPTIONS: readonly PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow in this project", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject in this session", kind: "reject_always" },
];

/** How long a permission request waits for the editor's answer before it counts as a reject. */
export const DEFAULT_PERMISSION_TIMEOUT_MS = 300_000;

/** What {@link acpApprovalAsker} needs. */
export interface AcpAskerOptions {
  client: AgentContext;
  /** The ACP session (its id is known once the session is open). */
  session: { id: string };
  cwd: string;
  timeoutMs: number;
  /** Aborted when the prompt the question belongs to is cancelled. */
  signal: () => AbortSignal | undefined;
}

/**
 * The approvals' asker for an editor: each call that needs a yes becomes a
 * `session/request_permission` showing the tool call (title, kind, locations, diff). "Allow
 * always" is remembered for the project by the approvals, as the CLI remembers it; "reject
 * always" is remembered for this session, so the same call is refused without asking again.
 * No answer within the timeout, a cancelled prompt or a closed connection is a reject.
 */
export function acpApprovalAsker(options: AcpAskerOptions): ApprovalAsker {
  const rejected = new Set<string>();
  return async (request: ApprovalRequest) => {
    const rule = JSON.stringify(ruleFor(request));
    if (rejected.has(rule)) return "no";
    const view = toolCallView(request.tool, request.args, options.cwd);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const prompt = options.signal();
    const signal = prompt ? AbortSignal.any([timeout, prompt]) : timeout;
    try {
      const response = await options.client.request(
        "session/request_permission",
        {
          sessionId: options.session.id,
          toolCall: {
            toolCallId: request.toolCallId,
            title: view.title,
            kind: view.kind,
            status: "pending",
            locations: view.locations,
            content: view.content,
            rawInput: request.args,
          },
          options: [...PERMISSION_OPTIONS],
        },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      const outcome = response.outcome;
      if (outcome.outcome !== "selected") return "no";
      switch (outcome.optionId) {
        case "allow_once":
          return "yes";
        case "allow_always":
          return "always";
        case "reject_always":
          rejected.add(rule);
          return "no";
        default:
          return "no";
      }
    } catch {
      return "no";
    }
  };
}
