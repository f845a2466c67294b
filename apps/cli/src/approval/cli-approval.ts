import { realpath } from "node:fs/promises";
import { createInterface } from "node:readline";
import type { AgentHost } from "@arbor/orchestration";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import type { ArborConfig } from "../config/index.js";
import { terminalSafe } from "../output/index.js";
import { type ApprovalAsker, ApprovalGate, type ApprovalGateOptions } from "./approval-gate.js";
import type { ApprovalRequest } from "./approval-policy.js";
import {
  APPROVAL_ENTRY_TYPE,
  type ApprovalAnswer,
  type ApprovalMode,
  approvalModeSchema,
} from "./approval-schema.js";
import { approvalFilePath, readApprovalFile } from "./approval-store.js";

/**
 * The approval mode of this run: `--approval`, else the config's `approval`, else `ask`.
 * @throws CliError (exit code 2) for a flag that names no mode
 */
export function resolveApprovalMode(flag: string | undefined, config: ArborConfig): ApprovalMode {
  if (flag === undefined) return config.approval ?? "ask";
  const parsed = approvalModeSchema.safeParse(flag);
  if (!parsed.success) {
    throw new CliError(`--approval ${JSON.stringify(flag)} is not an approval mode.`, {
      hint: "Use --approval ask (default: edits and commands are asked), auto-edit (edits allowed, commands asked), sandbox (edits allowed, commands run in bubblewrap without asking) or yolo (nothing asked).",
      exitCode: 2,
    });
  }
  return parsed.data;
}

/** The question asked on a terminal for a call, with control characters escaped. */
export function approvalQuestion(request: ApprovalRequest): string {
  const lines = [`Allow ${request.tool}: ${terminalSafe(request.subject)}`];
  if (request.detail) lines.push(terminalSafe(request.detail, { multiline: true }));
  lines.push("[y]es / [n]o / [a]lways for this project? ");
  return lines.join("\n");
}

/** Reads one answer on a terminal: y, n or a (anything else, or a closed input, is no). */
export function askOnTerminal(
  input: NodeJS.ReadableStream,
  output: { write(text: string): unknown },
): ApprovalAsker {
  return (request) =>
    new Promise<ApprovalAnswer>((resolve) => {
      const lines = createInterface({ input, terminal: false });
      let answered = false;
      lines.once("line", (line) => {
        answered = true;
        lines.close();
        const word = line.trim().toLowerCase();
        resolve(
          word === "y" || word === "yes"
            ? "yes"
            : word === "a" || word === "always"
              ? "always"
              : "no",
        );
      });
      lines.once("close", () => {
        if (!answered) resolve("no");
      });
      output.write(approvalQuestion(request));
    });
}

/**
 * The approval gate of a command: the mode from the flag or config, the project's rules
 * (a broken approvals file is reported now, not at the first tool call), and how to ask.
 * @throws CliError for a wrong `--approval` or a broken approvals file
 */
export async function createApprovalGate(
  context: CliContext,
  config: ArborConfig,
  asking: Pick<ApprovalGateOptions, "ask" | "onDenied">,
  mode: ApprovalMode = resolveApprovalMode(context.args.approval, config),
): Promise<ApprovalGate> {
  const approvalFile = approvalFilePath(context.paths.arborDir);
  try {
    await readApprovalFile(approvalFile);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), { cause: error });
  }
  const projectRealPath = await realpath(context.io.cwd);
  return new ApprovalGate({ mode, approvalFile, projectRealPath, ...asking });
}

/** Records every decision of the gate in the host's current session. */
export function recordApprovalsIn(gate: ApprovalGate, host: AgentHost): void {
  gate.recordTo((record) => host.session.appendCustomEntry(APPROVAL_ENTRY_TYPE, record));
}
