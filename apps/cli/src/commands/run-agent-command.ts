import { type OrchestrationEvent, type OrchestrationResult, runAgent } from "@arbor/orchestration";
import { workspaceTools } from "@arbor/workspace";
import { loadCliAgentTree, rememberAgentFile } from "../agent-tree/index.js";
import { type CliContext, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { configuredThinking } from "../config/index.js";
import { CliSessionStore, cliAgentOptions, cliModels } from "../host/index.js";
import { sessionDirFor } from "../paths.js";
import { asCliError, chooseSession } from "../session-locator.js";
import { runGateAndRules } from "./open-run-host.js";
import { readAll } from "./run-command.js";
import { RUN_EXIT_CODES, runExitCode } from "./run-exit-code.js";

/** A line for stderr when a child (advisor, destination, handoff, sub-agent) starts or ends. */
export function orchestrationNotice(event: OrchestrationEvent): string | undefined {
  if (event.type === "child_start") return `[${event.role} ${event.agentPath} started]`;
  if (event.type !== "child_end") return undefined;
  const tokens = event.usage.input + event.usage.output;
  const detail = event.message ? `: ${event.message}` : "";
  return `[${event.role} ${event.agentPath} ${event.outcome}, ${tokens} tokens${detail}]`;
}

/** Records in a stored session that it ran on `file`. */
async function rememberIn(store: CliSessionStore, sessionId: string, file: string): Promise<void> {
  const session = await store.open(sessionId);
  try {
    await rememberAgentFile(session, file);
  } finally {
    await session.close();
  }
}

/**
 * `arbor run --agent <file> "prompt"`: runs an agent file with its advisors, router
 * destinations, handoff and sub-agents. The answer streams to stdout, the children's
 * progress to stderr; every agent works in a session of its own beside the others, the
 * root's tree recording each child. Ctrl+C asks every agent for a final answer, a second
 * one stops them at once.
 */
export async function runAgentCommand(context: CliContext, agentFile: string): Promise<number> {
  const { io, args, paths, printer } = context;
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
  const thinking = configuredThinking(selection.config);
  const { gate, rules } = await runGateAndRules(context, selection);
  const choice = await chooseSession(paths, io.cwd, args);
  const store = new CliSessionStore({
    sessionsRoot: paths.sessionsRoot,
    sessionDirFor: (cwd) => sessionDirFor(paths, cwd),
  });
  const run = runAgent(tree, prompt, {
    store,
    cwd: io.cwd,
    ...(choice.sessionId !== undefined ? { sessionId: choice.sessionId } : {}),
    models: cliModels(selection.provider, () => thinking),
    tools: workspaceTools(io.cwd, { env: io.env, approve: gate.approve }),
    rules: rules.rules,
    agentOptions: cliAgentOptions(selection.config),
  });
  let stops = 0;
  const onSigint = () => {
    stops += 1;
    if (stops === 1) run.stop();
    else run.abort();
  };
  process.on("SIGINT", onSigint);
  let result: OrchestrationResult;
  try {
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
    await rememberIn(store, result.session.id, tree.file).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      printer.err(`[the session does not remember its agent file: ${reason}]\n`);
    });
  } catch (error) {
    throw asCliError(error);
  } finally {
    process.removeListener("SIGINT", onSigint);
    await store.close();
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
