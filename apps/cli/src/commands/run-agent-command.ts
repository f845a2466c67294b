import type { HostRun, OrchestrationResult, RunEvent } from "@arbor/orchestration";
import { loadCliAgentTree, rememberAgentFile } from "../agent-tree/index.js";
import { type CliContext, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { asCliError } from "../session-locator.js";
import { openRunHost } from "./open-run-host.js";
import { readAll } from "./run-command.js";
import { RUN_EXIT_CODES, runExitCode } from "./run-exit-code.js";

/** A line for stderr when a child (advisor, destination, handoff, sub-agent) starts or ends. */
export function orchestrationNotice(event: RunEvent): string | undefined {
  if (event.type === "child_start") return `[${event.role} ${event.agentPath} started]`;
  if (event.type !== "child_end") return undefined;
  const tokens = event.usage.input + event.usage.output;
  const detail = event.message ? `: ${event.message}` : "";
  return `[${event.role} ${event.agentPath} ${event.outcome}, ${tokens} tokens${detail}]`;
}

/**
 * `arbor run --agent <file> "prompt"`: runs an agent file with its advisors, router
 * destinations, handoff and sub-agents. The answer streams to stdout, the children's
 * progress to stderr; every agent works in a session of its own beside the others, the
 * root's tree recording each child. Ctrl+C asks every agent for a final answer, a second
 * one stops them at once.
 */
export async function runAgentCommand(context: CliContext, agentFile: string): Promise<number> {
  const { io, args, printer } = context;
  let prompt = args.positionals.join(" ").trim();
  if (!prompt && io.stdin.isTTY !== true) prompt = (await readAll(io.stdin)).trim();
  if (!prompt) {
    throw new CliError("arbor run --agent needs a prompt.", {
      hint: 'Pass it as an argument (arbor run --agent agents/main.md "plan the release").',
      exitCode: RUN_EXIT_CODES.usage,
    });
  }
  const tree = await loadCliAgentTree(io.cwd, agentFile);
  const selection = await selectModel(context);
  // The same setup as `arbor run` and the app: trust, extensions, rules, approvals, models.
  const agent = await openRunHost(context, selection, { agentTree: tree });
  const { host } = agent;
  let stops = 0;
  let run: HostRun | undefined;
  const onSigint = () => {
    stops += 1;
    if (stops === 1) run?.stop();
    else run?.abort();
  };
  process.on("SIGINT", onSigint);
  let result: OrchestrationResult;
  try {
    run = host.prompt(prompt);
    let endedWithNewline = true;
    for await (const event of run.events) {
      if (event.type === "text_delta" && !args.json) {
        printer.out(event.delta);
        endedWithNewline = event.delta.endsWith("\n");
        continue;
      }
      const notice = orchestrationNotice(event);
      if (!notice) continue;
      if (!endedWithNewline && !args.json) io.stdout.write("\n");
      endedWithNewline = true;
      printer.err(`${notice}\n`);
    }
    result = await run.result;
    if (!args.json && !endedWithNewline) io.stdout.write("\n");
    // As the app does: `arbor -c` (or -r, -s) then resumes the session on this agent file.
    await rememberAgentFile(host.session, tree.file).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      printer.err(`[the session does not remember its agent file: ${reason}]\n`);
    });
  } catch (error) {
    throw asCliError(error);
  } finally {
    process.removeListener("SIGINT", onSigint);
    await agent.close();
  }
  if (args.json) printer.json(result);
  else printer.err(`[answered by ${result.finalAgent}; session ${result.session.id}]\n`);
  if (!result.success) {
    const detail = result.message ? `: ${result.message}` : "";
    printer.err(`arbor: the run ended without an answer (${result.reason}${detail}).\n`);
    return runExitCode(result);
  }
  return RUN_EXIT_CODES.success;
}
