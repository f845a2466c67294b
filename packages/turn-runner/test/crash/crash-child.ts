/**
 * The process the SIGKILL test kills: it runs an AgentSession over a session file against
 * a slow scripted model and reports, as JSON lines on stdout, every event of the run (with
 * the entry ids the runner acknowledged) and every tool call that started. It never exits
 * on its own before the parent kills it, unless every prompt finished.
 *
 * Usage: node crash-child.js <session file> <plan: mid-stream | mid-tool | between-turns | during-backoff | second-prompt>
 */
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { openSessionFile } from "@arbor/session-store";
import { z } from "zod";
import { AgentSession, defineTool } from "../../src/index.js";

/** What the child reports on stdout, one JSON object per line. */
export type ChildReport =
  | { type: "ready"; pid: number }
  | { type: "event"; event: { type: string; entryId?: string } }
  | { type: "tool_started"; toolCallId: string }
  | { type: "prompt_done"; success: boolean };

const report = (line: ChildReport) => process.stdout.write(`${JSON.stringify(line)}\n`);

const toolCall = (id: string, a: number, b: number): ScriptedResponseInput => ({
  blocks: [{ type: "toolCall", id, name: "add", arguments: { a, b } }],
});
const slowText = (text: string, delayMs: number): ScriptedResponseInput => ({
  blocks: [{ type: "text", text }],
  chunkSize: 1,
  delayMs,
});
const LONG = "This answer streams slowly, one character at a time, so it is cut mid-way.";

/** The model answers and the tool delay of each plan. */
const PLANS: Record<
  string,
  { prompts: string[]; responses: ScriptedResponseInput[]; toolMs: number }
> = {
  // Turn 1 calls the tool; turn 2 streams slowly and is killed mid-stream.
  "mid-stream": {
    prompts: ["Add 2 and 40"],
    responses: [toolCall("c1", 2, 40), slowText(LONG, 20)],
    toolMs: 0,
  },
  // Two calls in one answer: one finishes at once, the other runs until the kill.
  "mid-tool": {
    prompts: ["Add twice"],
    responses: [
      {
        blocks: [
          { type: "toolCall", id: "fast", name: "add", arguments: { a: 1, b: 1 } },
          { type: "toolCall", id: "slow", name: "add", arguments: { a: 2, b: 2 } },
        ],
      },
      "never reached",
    ],
    toolMs: 60_000,
  },
  // Turn 1 ends with its tool result; turn 2's first delta comes only after a long pause.
  "between-turns": {
    prompts: ["Add 2 and 40"],
    responses: [toolCall("c1", 2, 40), slowText(LONG, 60_000)],
    toolMs: 0,
  },
  // The first attempt fails; the child is killed during the 60 s backoff.
  "during-backoff": {
    prompts: ["Hello"],
    responses: [{ error: { kind: "network_error" } }, "never reached"],
    toolMs: 0,
  },
  // The first prompt finishes; the second is killed mid-stream.
  "second-prompt": {
    prompts: ["Hello", "Tell me more"],
    responses: ["Hi there.", slowText(LONG, 20)],
    toolMs: 0,
  },
};

async function main(): Promise<void> {
  const [path, planName] = process.argv.slice(2);
  const plan = planName === undefined ? undefined : PLANS[planName];
  if (path === undefined || plan === undefined) {
    process.stderr.write(`usage: crash-child <session file> <${Object.keys(PLANS).join(" | ")}>\n`);
    process.exit(2);
  }
  const add = defineTool({
    name: "add",
    description: "Adds two numbers",
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }, { toolCallId, signal }) => {
      report({ type: "tool_started", toolCallId });
      const wait = toolCallId === "fast" ? 0 : plan.toolMs;
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
        });
      }
      return String(a + b);
    },
  });
  const session = await openSessionFile(path, { create: true, cwd: "/" });
  const agent = new AgentSession({
    targets: [{ model: new ScriptedModel({ responses: plan.responses }) }],
    session,
    tools: [add],
    retryDelayMs: 60_000,
  });
  report({ type: "ready", pid: process.pid });
  for (const prompt of plan.prompts) {
    const run = agent.prompt(prompt);
    for await (const event of run.events) {
      const entryId = "entryId" in event ? event.entryId : undefined;
      report({ type: "event", event: { type: event.type, ...(entryId ? { entryId } : {}) } });
    }
    report({ type: "prompt_done", success: (await run.result).success });
  }
  await session.close();
}

await main();
