import { fstatSync } from "node:fs";
import type { AgentHost } from "@arbor/orchestration";
import { guardExtensionFailures } from "@arbor/orchestration";
import { type CliContext, selectModel } from "../cli-context.js";
import type { CliAgent } from "../host/index.js";
import { UnpricedModels } from "../output/index.js";
import { lastAssistantText } from "../session-text.js";
import {
  onTerminationSignal,
  retryUnansweredPrompt,
  signalExitCode,
  type TerminationSignal,
  unansweredPrompt,
} from "../signals/index.js";
import { openRunHost } from "./open-run-host.js";
import { AcceptedText, OUTPUT_FORMATS, type OutputFormat } from "./print-output.js";
import { noticeFor, readAll } from "./run-command.js";
import { lastFailoverKind, RUN_EXIT_CODES, runExitCode } from "./run-exit-code.js";
import { runOverridesOf, usage } from "./run-overrides.js";

/** The output format `--output-format` (or `--json`) asks for. */
export function outputFormatOf(flag: string | undefined, json: boolean): OutputFormat {
  if (flag === undefined) return json ? "json" : "text";
  if ((OUTPUT_FORMATS as readonly string[]).includes(flag)) return flag as OutputFormat;
  throw usage(
    `--output-format ${JSON.stringify(flag)} is not an output format.`,
    "Use --output-format text (the answer), json (one result object) or stream-json (one JSON event per line).",
  );
}

/**
 * Whether print mode reads stdin: never a terminal; without a prompt argument anything
 * else; with one, only a pipe or a file (`cat log | arbor -p "explain"`), so a script
 * that leaves an inherited stdin open (a socket, a device) does not wait forever.
 */
export function stdinHoldsInput(
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; fd?: number },
  promptGiven: boolean,
): boolean {
  if (stdin.isTTY === true) return false;
  if (!promptGiven) return true;
  if (typeof stdin.fd !== "number") return true;
  try {
    const info = fstatSync(stdin.fd);
    return info.isFIFO() || info.isFile();
  } catch {
    return false;
  }
}

/**
 * Print mode (`arbor -p "prompt"`, `arbor "prompt"`, or a prompt piped to `arbor`): one
 * prompt, the answer on stdout in the chosen format, then exit with `arbor run`'s exit
 * codes. A prompt given and a piped stdin are joined (the question, then the text). In
 * `text` format an answer is written once accepted, so a retried attempt never shows.
 */
export async function printCommand(context: CliContext, words: readonly string[]): Promise<number> {
  const { io, printer } = context;
  const format = outputFormatOf(context.args.outputFormat, context.args.json);
  const overrides = runOverridesOf(context);
  const selection = await selectModel(context);
  const given = words.join(" ").trim();
  const piped = stdinHoldsInput(io.stdin, given !== "") ? (await readAll(io.stdin)).trim() : "";
  const prompt = [given, piped].filter((part) => part !== "").join("\n\n");
  const resuming = context.args.continue || context.args.session !== undefined;
  if (!prompt && !resuming) throw noPrompt();
  const unguard = guardExtensionFailures(process);
  let agent: CliAgent | undefined;
  let host: AgentHost | undefined;
  let stoppedBy: TerminationSignal | undefined;
  const stopOnSignal = onTerminationSignal((signal) => {
    stoppedBy = signal;
    host?.abort();
  });
  try {
    agent = await openRunHost(context, selection, overrides);
    host = agent.host;
    if (stoppedBy !== undefined) return signalExitCode(stoppedBy);
    const opened = host;
    // Without a prompt, a resumed session whose last message got no answer (the process
    // was killed) has it sent again, as a sibling rather than a second copy.
    const unanswered = prompt ? undefined : unansweredPrompt(opened.session);
    if (!prompt && unanswered === undefined) throw noPrompt();
    const unpriced = new UnpricedModels();
    const reportPrice = () => {
      const notice = unpriced.check(opened.state().model);
      if (notice) printer.err(`[${notice}]\n`);
    };
    reportPrice();
    const onSigint = () => opened.abort();
    process.once("SIGINT", onSigint);
    if (unanswered) printer.err("[retrying the last message, which got no answer]\n");
    const run = unanswered ? await retryUnansweredPrompt(opened, unanswered) : host.prompt(prompt);
    const text = new AcceptedText();
    try {
      for await (const event of run.events) {
        if (format === "stream-json") printer.jsonLine(event);
        else if (format === "text") {
          const ready = text.take(event);
          if (ready) printer.out(ready);
          const notice = noticeFor(event);
          if (notice) printer.err(`${notice}\n`);
        }
      }
    } finally {
      process.removeListener("SIGINT", onSigint);
    }
    const result = await run.result;
    reportPrice();
    await agent.close();
    if (format === "text") printer.out(text.finish());
    const state = host.state();
    const output = {
      ...result,
      sessionId: state.sessionId,
      sessionFile: overrides.noSession ? null : host.session.location,
      title: state.title ?? null,
      text: lastAssistantText(host.session),
    };
    if (format === "json") printer.json(output);
    if (format === "stream-json") printer.jsonLine({ type: "result", ...output });
    if (stoppedBy !== undefined) {
      printer.err(`arbor: stopped by ${stoppedBy}; the partial answer is stored.\n`);
      return signalExitCode(stoppedBy);
    }
    if (!result.success) {
      const detail = result.message ? `: ${result.message}` : "";
      printer.err(`arbor: the run ended without an answer (${result.reason}${detail}).\n`);
      return runExitCode(result, lastFailoverKind(host.session.getBranch()));
    }
    return RUN_EXIT_CODES.success;
  } finally {
    stopOnSignal();
    unguard();
    await agent?.close();
  }
}

function noPrompt(): Error {
  return usage(
    "print mode needs a prompt.",
    'Pass it as an argument (arbor -p "explain this error") or pipe it: echo "…" | arbor -p',
  );
}
