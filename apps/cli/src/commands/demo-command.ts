import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { exportSessionToHtml, snapshotOfSession } from "@arbor/html-export";
import {
  type AgentDefinition,
  AgentHost,
  createOpenAIChatModel,
  ttsrRuleSchema,
} from "@arbor/orchestration";
import { FakeProviderServer } from "@arbor/orchestration/test";
import type { CliContext } from "../cli-context.js";
import { CliSessionStore } from "../host/index.js";
import { sessionDirFor } from "../paths.js";
import {
  DEMO_COMPACTION_SUMMARY,
  DEMO_RULE,
  DEMO_STEPS,
  type DemoStep,
  demoReadFileTool,
} from "./demo-script.js";

/** What `arbor demo` leaves behind. */
export interface DemoOutcome {
  sessionFile: string;
  htmlFile: string;
  sessionId: string;
}

/** The demo's agent: no system prompt (none was ever sent), the fake server's model. */
const DEMO_AGENT = { name: "arbor-demo", models: [{ provider: "demo" }] } as AgentDefinition;

async function runStep(
  agent: AgentHost,
  step: DemoStep,
  say: (line: string) => void,
): Promise<void> {
  say(`> ${step.prompt}`);
  const run = agent.prompt(step.prompt);
  let answer = "";
  for await (const event of run.events) {
    if (event.type === "text_delta") answer += event.delta;
    if (event.type === "turn_start") answer = "";
    if (event.type === "tool_result") {
      say(`  tool call: ${event.toolName} ${event.isError ? "failed" : "returned its result"}`);
    }
    if (event.type === "ttsr_triggered") {
      say(
        `  stream rule "${event.rules.map((rule) => rule.name).join(", ")}" matched mid-answer: the answer was cut and retried`,
      );
      answer = "";
    }
    if (event.type === "retry") say(`  provider error (${event.kind}), retrying`);
  }
  const result = await run.result;
  if (!result.success) {
    throw new Error(`the demo's model run failed: ${result.reason} ${result.message ?? ""}`);
  }
  say(`  answer: ${answer.replace(/\s+/g, " ").trim()}`);
}

/**
 * Runs the demo session: a fake OpenAI-compatible server on loopback, the real OpenAI
 * adapter, a tool call, a stream-rule interrupt with its retry, a branch and an HTML export.
 */
export async function runDemo(
  dir: string,
  cwd: string,
  exportDir: string,
  say: (line: string) => void,
): Promise<DemoOutcome> {
  const steps = [DEMO_STEPS.toolCall, DEMO_STEPS.streamRule, DEMO_STEPS.branch];
  const server = await FakeProviderServer.start({
    responses: steps.flatMap((s) => s.responses),
    // Compaction may ask once or twice (a turn cut in two gets its own summary).
    fallback: () => DEMO_COMPACTION_SUMMARY,
  });
  let host: AgentHost | undefined;
  try {
    say(`Fake OpenAI-compatible server listening on ${server.openaiBaseURL}`);
    const model = createOpenAIChatModel({
      model: "arbor-demo",
      apiKey: "demo-key",
      baseURL: server.openaiBaseURL,
    });
    host = await AgentHost.open({
      store: new CliSessionStore({ sessionsRoot: dirname(dir), sessionDirFor: () => dir }),
      create: { cwd },
      agent: DEMO_AGENT,
      models: () => model,
      tools: [demoReadFileTool],
      rules: [ttsrRuleSchema.parse(DEMO_RULE)],
      projectRoot: cwd,
      // Small enough that the demo's short talk has something to compact: the first
      // exchange becomes the summary, the branch's question and answer stay verbatim.
      agentOptions: { compaction: { keepRecentTokens: 25 } },
    });
    const { session } = host;
    say(`Session ${session.id} stored in ${session.location}`);
    say(`Stream rule "${DEMO_RULE.name}" watches the answers for /${DEMO_RULE.condition}/`);
    say("1. A tool call");
    await runStep(host, DEMO_STEPS.toolCall, say);
    const firstAnswerId = session.getLeafId();
    say("2. A stream-rule interrupt and retry");
    await runStep(host, DEMO_STEPS.streamRule, say);
    if (firstAnswerId === null) throw new Error("the demo's first answer was not stored");
    say("3. A branch: back to the first answer, asking something else");
    await host.navigate(firstAnswerId);
    await session.appendLabelChange(firstAnswerId, "before the log line");
    await runStep(host, DEMO_STEPS.branch, say);
    say("4. A compaction: older turns become a summary, the newest stay verbatim");
    const outcome = await host.compact();
    if (outcome.status === "compacted") {
      say(
        `  compacted ${outcome.tokensBefore} tokens; kept from entry ${outcome.firstKeptEntryId}`,
      );
    } else if (outcome.status === "failed") {
      throw new Error(`the demo's compaction failed: ${String(outcome.error)}`);
    } else {
      say(`  nothing compacted (${outcome.status})`);
    }
    await session.flush();
    await mkdir(exportDir, { recursive: true });
    const htmlFile = join(exportDir, `${session.id}.html`);
    await writeFile(htmlFile, exportSessionToHtml(snapshotOfSession(session)), "utf8");
    return { sessionFile: session.location, htmlFile, sessionId: session.id };
  } finally {
    await host?.close();
    await server.close();
  }
}

/** `arbor demo`: runs {@link runDemo} with progress lines and prints where things went. */
export async function demoCommand(context: CliContext): Promise<number> {
  const { io, paths, printer } = context;
  const started = Date.now();
  const say = (line: string) => printer.out(`${line}\n`);
  const outcome = await runDemo(
    sessionDirFor(paths, io.cwd),
    io.cwd,
    join(paths.arborDir, "exports"),
    say,
  );
  say("");
  say(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  say(`Session file: ${outcome.sessionFile}`);
  say(`HTML export:  ${outcome.htmlFile}`);
  say(`Resume it:    arbor --session ${outcome.sessionId}   (needs a configured provider)`);
  return 0;
}
