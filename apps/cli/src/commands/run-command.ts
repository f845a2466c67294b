import type { AgentHost, RunEvent } from "@arbor/orchestration";
import { guardExtensionFailures } from "@arbor/orchestration";
import { type CliContext, selectModel } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import type { CliAgent } from "../host/index.js";
import { contextNoticeFor, UnpricedModels } from "../output/index.js";
import { lastAssistantText } from "../session-text.js";
import { onTerminationSignal, signalExitCode, type TerminationSignal } from "../signals/index.js";
import { openRunHost } from "./open-run-host.js";
import { lastFailoverKind, RUN_EXIT_CODES, runExitCode } from "./run-exit-code.js";
import { runOverridesOf } from "./run-overrides.js";

/** Reads all of a piped stdin as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A short line for events the user should notice on stderr, or undefined. */
export function noticeFor(event: RunEvent): string | undefined {
  if (event.type === "ttsr_triggered") {
    const rules = event.rules.map((rule) => rule.name).join(", ");
    return event.interrupted
      ? `[stream rule ${rules}: answer restarted with a reminder]`
      : `[stream rule ${rules}: reminder queued for the next request]`;
  }
  if (event.type === "retry") {
    const wait = event.delayMs > 0 ? `, retrying in ${Math.round(event.delayMs / 100) / 10} s` : "";
    return `[${event.target.provider}/${event.target.model}: ${event.kind}: ${event.message}${wait}]`;
  }
  const context = contextNoticeFor(event);
  return context ? `[${context.text}]` : undefined;
}

/**
 * `arbor run "prompt"`: sends one prompt, streams the answer to stdout (or prints the
 * result object with `--json`) and resolves with the exit code.
 */
export async function runCommand(context: CliContext): Promise<number> {
  const { io, args, printer } = context;
  const selection = await selectModel(context);
  let prompt = args.positionals.join(" ").trim();
  if (!prompt && io.stdin.isTTY !== true) prompt = (await readAll(io.stdin)).trim();
  if (!prompt) {
    throw new CliError("arbor run needs a prompt.", {
      hint: 'Pass it as an argument (arbor run "explain this error") or pipe it to stdin.',
      exitCode: RUN_EXIT_CODES.usage,
    });
  }
  // A stray failure of an extension is reported, not fatal to the run and its session.
  const unguard = guardExtensionFailures(process);
  let agent: CliAgent | undefined;
  let host: AgentHost | undefined;
  // SIGTERM or SIGHUP: the answer so far is stored as aborted and the session closed.
  let stoppedBy: TerminationSignal | undefined;
  const stopOnSignal = onTerminationSignal((signal) => {
    stoppedBy = signal;
    host?.abort();
  });
  try {
    agent = await openRunHost(context, selection, runOverridesOf(context));
    host = agent.host;
    if (stoppedBy !== undefined) return signalExitCode(stoppedBy);
    const opened = host;
    const unpriced = new UnpricedModels();
    const reportPrice = () => {
      const notice = unpriced.check(opened.state().model);
      if (notice) printer.err(`[${notice}]\n`);
    };
    reportPrice();
    const onSigint = () => opened.abort();
    process.once("SIGINT", onSigint);
    const run = host.prompt(prompt);
    let endedWithNewline = true;
    try {
      for await (const event of run.events) {
        if (event.type === "text_delta" && !args.json) {
          printer.out(event.delta);
          endedWithNewline = event.delta.endsWith("\n");
        }
        const notice = noticeFor(event);
        if (!notice) continue;
        // The answer that follows (a retry) starts on a line of its own.
        if (!endedWithNewline && !args.json) io.stdout.write("\n");
        endedWithNewline = true;
        printer.err(`${notice}\n`);
      }
    } finally {
      process.removeListener("SIGINT", onSigint);
    }
    const result = await run.result;
    // The run may have moved to another model (failover); it is reported once too.
    reportPrice();
    // Extensions hear of the end (session_shutdown) and finish runs they started.
    await agent.close();
    if (!args.json && !endedWithNewline) io.stdout.write("\n");
    if (args.json) {
      const state = host.state();
      const output = {
        ...result,
        sessionId: state.sessionId,
        title: state.title ?? null,
        text: lastAssistantText(host.session),
      };
      printer.json(output);
    }
    if (stoppedBy !== undefined) {
      printer.err(
        `arbor: stopped by ${stoppedBy}; the partial answer is stored (resume with arbor --continue).\n`,
      );
      return signalExitCode(stoppedBy);
    }
    if (!result.success) {
      const detail = result.message ? `: ${result.message}` : "";
      printer.err(`arbor: the run ended without an answer (${result.reason}${detail}).\n`);
      printer.err(
        result.reason === "aborted"
          ? "The partial answer is stored; resume with arbor --continue.\n"
          : "Check the provider settings (arbor --help), then retry with arbor run --continue.\n",
      );
      return runExitCode(result, lastFailoverKind(host.session.getBranch()));
    }
    return RUN_EXIT_CODES.success;
  } finally {
    stopOnSignal();
    unguard();
    await agent?.close();
  }
}
