import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { FakeProviderServer } from "@arbor/orchestration/test";
import { formatResultsTable } from "../scenario/format-table.js";
import { runScenario, type ScenarioResult } from "../scenario/run-scenario.js";
import {
  isAgentScenario,
  isOrchestrationScenario,
  loadScenarios,
  parseScenario,
  ScenarioFileError,
} from "../scenario/scenario-file.js";

/** Where the CLI writes, and what stops `serve`; passed in so the CLI runs inside tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Aborting it stops `serve`. */
  signal: AbortSignal;
  /** Called with the server once `serve` listens. */
  onServe?: (server: FakeProviderServer) => void;
}

/** The text `arbor-harness --help` prints. */
export const HELP = `arbor-harness — scenarios and wire-exact fake provider servers for Arbor

Usage:
  arbor-harness run <file|dir>...      run scenario files (.json, .yaml, .yml); exits 1 if any fails
  arbor-harness serve [--port <n>] [--script <file>]
                                       start the fake OpenAI and Anthropic servers on 127.0.0.1
  arbor-harness --help                 show this help

serve answers each call with the next scripted turn from --script (a scenario file), then
echoes the last user message. Point any client at the printed URLs:
  OpenAI:    baseURL = <url>/v1         (POST /v1/chat/completions)
  Anthropic: baseURL = <url>            (POST /v1/messages)
`;

/**
 * Runs the `arbor-harness` command line.
 *
 * @returns the process exit code: 0 success, 1 a scenario failed, 2 bad usage or input.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    io.stdout(HELP);
    return command === undefined ? 2 : 0;
  }
  try {
    if (command === "run") return await run(rest, io);
    if (command === "serve") return await serve(rest, io);
  } catch (error) {
    io.stderr(`arbor-harness: ${(error as Error).message}\n`);
    return 2;
  }
  io.stderr(`arbor-harness: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
  return 2;
}

async function run(args: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args: [...args], allowPositionals: true, options: {} });
  if (positionals.length === 0) {
    io.stderr("arbor-harness run: name at least one scenario file or directory\n");
    return 2;
  }
  const results: ScenarioResult[] = [];
  for (const target of positionals) {
    let files: Awaited<ReturnType<typeof loadScenarios>>;
    try {
      files = await loadScenarios(target);
    } catch (error) {
      if (!ScenarioFileError.isInstance(error)) throw error;
      io.stderr(`arbor-harness: ${error.message}\n`);
      return 2;
    }
    if (files.length === 0) io.stderr(`arbor-harness: no scenario files under ${target}\n`);
    for (const file of files) results.push(await runScenario(file.scenario, file.path));
  }
  io.stdout(formatResultsTable(results));
  return results.every((result) => result.passed) ? 0 : 1;
}

async function serve(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { port: { type: "string" }, script: { type: "string" } },
  });
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`--port must be 0-65535, got ${values.port}`);
  const script = values.script
    ? parseScenario(await readFile(values.script, "utf8"), values.script)
    : undefined;
  // An agent scenario serves the turns of all its targets, in target order.
  const turns =
    script === undefined
      ? []
      : isAgentScenario(script)
        ? script.agent.targets.flatMap((target) => target.turns)
        : isOrchestrationScenario(script)
          ? Object.values(script.targets).flatMap((target) => target.turns)
          : script.turns;
  const server = await FakeProviderServer.start({ port, responses: turns, fallback: echo });
  io.stdout(
    `fake provider servers listening\n  OpenAI:    ${server.openaiBaseURL}  (POST /v1/chat/completions)\n  Anthropic: ${server.anthropicBaseURL}  (POST /v1/messages)\n${turns.length} scripted turn(s), then echo. Ctrl-C to stop.\n`,
  );
  io.onServe?.(server);
  await new Promise<void>((resolve) => {
    if (io.signal.aborted) resolve();
    else io.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  await server.close();
  io.stdout(`served ${server.requests.length} request(s)\n`);
  return 0;
}

/** Echoes the last user message's text back, for manual use of `serve`. */
function echo(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages)
    ? (body.messages as Array<{ role?: unknown; content?: unknown }>)
    : [];
  const last = [...messages].reverse().find((message) => message.role === "user");
  const content = last?.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : ""))
            .join("")
        : "";
  return `echo: ${text}`;
}
