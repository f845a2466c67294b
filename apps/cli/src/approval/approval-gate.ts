import type { AgentTool } from "@arbor/orchestration";
import { ArborError, arborErrorGuard } from "@arbor/session-store";
import { type ApproveToolCall, withApproval } from "@arbor/workspace";
import {
  type ApprovalRequest,
  approvalVerdict,
  needsApprovalCheck,
  ruleFor,
} from "./approval-policy.js";
import type { ApprovalAnswer, ApprovalMode, ApprovalRecord } from "./approval-schema.js";
import { projectAllowRules, rememberAllowRule } from "./approval-store.js";

/** Asks the user about a call; undefined when there is no terminal to ask on. */
export type ApprovalAsker = (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/** Options of {@link ApprovalGate}. */
export interface ApprovalGateOptions {
  mode: ApprovalMode;
  /** The `approvals.json` the project's rules are read from and "always" writes to. */
  approvalFile: string;
  /** The project's real path, the key of its rules. */
  projectRealPath: string;
  /** How to ask; without it a call that needs a yes fails with a message saying how to allow it. */
  ask?: ApprovalAsker;
  /** Told when a call fails for want of a terminal, so the app can say so where the user looks. */
  onDenied?: (error: ToolCallDeniedError) => void;
}

/** A call the user (or the lack of a terminal) did not allow; the model reads the message. */
export class ToolCallDeniedError extends ArborError {
  override readonly name = "ToolCallDeniedError";
  /** `declined`: the user said no; `no_terminal`: there was no one to ask. */
  declare readonly code: "declined" | "no_terminal";

  constructor(code: "declined" | "no_terminal", message: string) {
    super(code, message);
  }

  /** Tells whether a value is a {@link ToolCallDeniedError}, from any copy of this module. */
  static override readonly isInstance = arborErrorGuard<ToolCallDeniedError>(
    "@arbor/cli:ToolCallDeniedError",
  );
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** What a call is about, in one line, and what to show before asking. */
export function describeCall(
  tool: string,
  toolCallId: string,
  args: Record<string, unknown>,
): ApprovalRequest {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : "");
  if (tool === "bash") {
    const cwd = text("cwd");
    const where = [
      ...(cwd ? [`in ${cwd}`] : []),
      ...(args.outside_sandbox === true ? ["outside the sandbox (network, files elsewhere)"] : []),
    ];
    return { tool, toolCallId, args, subject: text("command"), detail: where.join(", ") };
  }
  if (tool === "write") {
    const content = text("content");
    const lines = content.split("\n");
    const head = lines.slice(0, 12).map((line) => `+${clip(line, 200)}`);
    if (lines.length > 12) head.push(`… ${lines.length - 12} more lines`);
    return { tool, toolCallId, args, subject: text("path"), detail: head.join("\n") };
  }
  if (tool === "edit") {
    const old = text("oldText")
      .split("\n")
      .slice(0, 12)
      .map((line) => `-${clip(line, 200)}`);
    const next = text("newText")
      .split("\n")
      .slice(0, 12)
      .map((line) => `+${clip(line, 200)}`);
    return { tool, toolCallId, args, subject: text("path"), detail: [...old, ...next].join("\n") };
  }
  return { tool, toolCallId, args, subject: clip(JSON.stringify(args), 300), detail: "" };
}

/**
 * Decides, before a tool runs, whether it may: the mode and the project's remembered rules
 * first, then the user. Every decision about a tool that is not read-only goes to the
 * recorder (the session's `arbor.approval` entries); "always" remembers a rule for the
 * project. A call without a yes fails with a message the model reads; with no way to ask
 * (no terminal) it fails at once, saying how to allow it, and never waits.
 */
export class ApprovalGate {
  #record: ((record: ApprovalRecord) => Promise<unknown>) | undefined;
  /** Decisions in progress, one at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly options: ApprovalGateOptions) {}

  /** Changes the mode the next decisions are made in (`arbor acp`'s session modes). */
  setMode(mode: ApprovalMode): void {
    this.options.mode = mode;
  }

  /** Where decisions are recorded (set once the session is open). */
  recordTo(record: (record: ApprovalRecord) => Promise<unknown>): void {
    this.#record = record;
  }

  /**
   * Resolves when the call may run.
   * @throws ToolCallDeniedError when it may not
   */
  check(request: ApprovalRequest): Promise<void> {
    if (!needsApprovalCheck(request.tool)) return Promise.resolve();
    // One decision at a time, in call order: parallel calls are asked about one by one.
    const turn = this.#queue.then(() => this.#decide(request));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #decide(request: ApprovalRequest): Promise<void> {
    const { mode } = this.options;
    const rules = await projectAllowRules(this.options.approvalFile, this.options.projectRealPath);
    const verdict = approvalVerdict(mode, request, rules);
    const base = {
      tool: request.tool,
      toolCallId: request.toolCallId,
      subject: request.subject,
      mode,
    };
    if (verdict.decision === "allow") {
      await this.#record?.({ ...base, decision: "allowed", by: verdict.by });
      return;
    }
    const ask = this.options.ask;
    if (!ask) {
      await this.#record?.({ ...base, decision: "denied", by: "no_terminal" });
      const error = new ToolCallDeniedError(
        "no_terminal",
        `${request.tool} needs the user's approval (approval mode "${mode}"), and there is no terminal to ask on, so it did not run. The user can rerun with --approval auto-edit (file edits) or --approval yolo (everything), or allow it for this project in ${this.options.approvalFile}.`,
      );
      this.options.onDenied?.(error);
      throw error;
    }
    const answer = await ask(request);
    if (answer === "no") {
      await this.#record?.({ ...base, decision: "denied", by: "user" });
      throw new ToolCallDeniedError(
        "declined",
        `The user declined this ${request.tool} call; it did not run. Ask what they want instead.`,
      );
    }
    if (answer === "always") {
      const rule = ruleFor(request);
      await rememberAllowRule(this.options.approvalFile, this.options.projectRealPath, rule);
      await this.#record?.({ ...base, decision: "allowed", by: "user", remembered: rule });
      return;
    }
    await this.#record?.({ ...base, decision: "allowed", by: "user" });
  }

  /**
   * This gate as the workspace tools' approval hook (`workspaceTools(root, { approve })`):
   * read-only tools pass at once, the others are decided as {@link check} decides.
   */
  readonly approve: ApproveToolCall = ({ tool, toolCallId, args }) =>
    this.check(describeCall(tool, toolCallId, args));

  /**
   * The tools (MCP tools, or any others without a hook of their own), each checked by this
   * gate before it runs. Waiting for the user's answer does not count against a tool's
   * timeout: the wrapped tool has no turn-runner timeout of its own (a day), and the tool's
   * `timeoutMs` is enforced once it may run.
   */
  wrap(tools: readonly AgentTool[]): AgentTool[] {
    return withApproval(tools, this.approve, needsApprovalCheck);
  }
}
