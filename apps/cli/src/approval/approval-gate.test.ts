import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@arbor/providers/test";
import { createSession, isEntryOfType, messageText } from "@arbor/session-store";
import { AgentSession, type AgentTool, defineTool } from "@arbor/turn-runner";
import { workspaceTools } from "@arbor/workspace";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApprovalError } from "./approval-error.js";
import { type ApprovalAsker, ApprovalGate } from "./approval-gate.js";
import { approvalVerdict, ruleAllows } from "./approval-policy.js";
import { APPROVAL_ENTRY_TYPE, type ApprovalAnswer, type ApprovalMode } from "./approval-schema.js";
import { readApprovalFile } from "./approval-store.js";

let base: string;
let project: string;
let approvalFile: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-approval-"));
  project = join(base, "project");
  await mkdir(project);
  approvalFile = join(base, "home", ".arbor", "approvals.json");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("approvalVerdict", () => {
  it.each<[ApprovalMode, string, "allow" | "ask"]>([
    ["ask", "read", "allow"],
    ["ask", "grep", "allow"],
    ["ask", "write", "ask"],
    ["ask", "edit", "ask"],
    ["ask", "bash", "ask"],
    ["ask", "some_mcp_tool", "ask"],
    ["auto-edit", "write", "allow"],
    ["auto-edit", "edit", "allow"],
    ["auto-edit", "bash", "ask"],
    ["sandbox", "write", "allow"],
    ["sandbox", "edit", "allow"],
    ["sandbox", "bash", "allow"],
    ["sandbox", "some_mcp_tool", "ask"],
    ["yolo", "bash", "allow"],
    ["yolo", "write", "allow"],
  ])("%s mode, %s: %s", (mode, tool, decision) => {
    expect(approvalVerdict(mode, { tool, args: { command: "ls" } }, []).decision).toBe(decision);
  });

  it("sandbox mode asks for a command that asks to leave the sandbox", () => {
    const args = { command: "curl https://example.com", outside_sandbox: true };
    expect(approvalVerdict("sandbox", { tool: "bash", args }, []).decision).toBe("ask");
    expect(approvalVerdict("auto-edit", { tool: "bash", args }, []).decision).toBe("ask");
  });

  it("a prefix rule never covers a command that chains, substitutes or redirects", () => {
    const rule = { tool: "bash", commandPrefix: "npm test" };
    expect(ruleAllows(rule, { tool: "bash", args: { command: "npm test" } })).toBe(true);
    expect(ruleAllows(rule, { tool: "bash", args: { command: "npm test -- a.ts" } })).toBe(true);
    for (const command of [
      "npm testx",
      "npm test; rm -rf /",
      "npm test && curl x",
      "npm test | sh",
      "npm test > /etc/x",
      "npm test `rm`",
      "npm test $(rm)",
      "npm test\nrm -rf /",
      "npm test & rm",
    ]) {
      expect(ruleAllows(rule, { tool: "bash", args: { command } }), command).toBe(false);
    }
    const exact = { tool: "bash", command: "make" };
    expect(ruleAllows(exact, { tool: "bash", args: { command: " make " } })).toBe(true);
    expect(ruleAllows(exact, { tool: "bash", args: { command: "make install" } })).toBe(false);
    expect(ruleAllows({ tool: "write" }, { tool: "edit", args: {} })).toBe(false);
  });
});

/** Runs the scripted tool calls through a gated agent; returns results, stored decisions and questions. */
async function runGated(
  mode: ApprovalMode,
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  answers?: ApprovalAnswer[],
) {
  const asked: string[] = [];
  const ask: ApprovalAsker | undefined = answers
    ? async (request) => {
        asked.push(`${request.tool}: ${request.subject}`);
        const answer = answers.shift();
        if (!answer) throw new Error("asked more often than scripted");
        return answer;
      }
    : undefined;
  const gate = new ApprovalGate({
    mode,
    approvalFile,
    projectRealPath: project,
    ...(ask ? { ask } : {}),
  });
  const session = await createSession({ dir: join(base, "sessions"), cwd: project });
  gate.recordTo((record) => session.appendCustomEntry(APPROVAL_ENTRY_TYPE, record));
  const model = new ScriptedModel({
    responses: [
      {
        blocks: calls.map((call, index) => ({
          type: "toolCall" as const,
          id: `call-${index}`,
          ...call,
        })),
      },
      "done",
    ],
  });
  const agent = new AgentSession({
    targets: [{ model }],
    session,
    tools: workspaceTools(project, { approve: gate.approve }),
  });
  const run = agent.prompt("go");
  for await (const _event of run.events) {
    // drain
  }
  const result = await run.result;
  await agent.shutdown();
  const entries = session.getEntries();
  const decisions = entries.flatMap((entry) =>
    isEntryOfType(entry, "custom") && entry.customType === APPROVAL_ENTRY_TYPE ? [entry.data] : [],
  );
  // Calls may finish in any order: results are put back in call order.
  const results = entries
    .flatMap((entry) =>
      isEntryOfType(entry, "message") && entry.message.role === "toolResult" ? [entry.message] : [],
    )
    .sort((a, b) =>
      String((a as { toolCallId?: unknown }).toolCallId).localeCompare(
        String((b as { toolCallId?: unknown }).toolCallId),
      ),
    )
    .map((message) => messageText(message));
  await session.close();
  return { asked, decisions, results, result };
}

const WRITE = { name: "write", arguments: { path: "a.txt", content: "hello" } };
const BASH = { name: "bash", arguments: { command: "echo ran > ran.txt" } };

describe("ApprovalGate in a session", () => {
  it("yes runs the call, no does not, always remembers a rule for the project; every decision is stored", async () => {
    const first = await runGated(
      "ask",
      [WRITE, BASH, { name: "read", arguments: { path: "a.txt" } }],
      ["yes", "no"],
    );
    expect(first.result.success).toBe(true);
    expect(first.asked).toEqual(["write: a.txt", "bash: echo ran > ran.txt"]);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("hello");
    await expect(readFile(join(project, "ran.txt"), "utf8")).rejects.toThrow();
    expect(first.results[1]).toContain("The user declined this bash call");
    expect(first.decisions).toEqual([
      expect.objectContaining({ tool: "write", decision: "allowed", by: "user", subject: "a.txt" }),
      expect.objectContaining({ tool: "bash", decision: "denied", by: "user" }),
    ]);

    const second = await runGated("ask", [BASH], ["always"]);
    expect(await readFile(join(project, "ran.txt"), "utf8")).toBe("ran\n");
    expect(second.decisions).toEqual([
      expect.objectContaining({
        decision: "allowed",
        by: "user",
        remembered: { tool: "bash", command: "echo ran > ran.txt" },
      }),
    ]);
    expect((await readApprovalFile(approvalFile)).projects[project]?.allow).toEqual([
      { tool: "bash", command: "echo ran > ran.txt" },
    ]);
    // Remembered: not asked again; another command still is.
    const third = await runGated(
      "ask",
      [BASH, { name: "bash", arguments: { command: "echo other" } }],
      ["no"],
    );
    expect(third.asked).toEqual(["bash: echo other"]);
    expect(third.decisions.map((d) => (d as { by: string }).by)).toEqual(["rule", "user"]);
  });

  it("without a terminal a call that needs a yes fails at once with a message saying how to allow it", async () => {
    const started = Date.now();
    const { results, decisions } = await runGated("ask", [WRITE, BASH]);
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const text of results) {
      expect(text).toContain("needs the user's approval");
      expect(text).toContain("--approval");
    }
    await expect(readFile(join(project, "a.txt"), "utf8")).rejects.toThrow();
    expect(decisions).toEqual([
      expect.objectContaining({ decision: "denied", by: "no_terminal" }),
      expect.objectContaining({ decision: "denied", by: "no_terminal" }),
    ]);
  });

  it("auto-edit allows edits and asks about commands; yolo asks nothing", async () => {
    const autoEdit = await runGated("auto-edit", [WRITE, BASH]);
    expect(await readFile(join(project, "a.txt"), "utf8")).toBe("hello");
    expect(autoEdit.results[1]).toContain("needs the user's approval");
    const yolo = await runGated("yolo", [BASH]);
    expect(yolo.decisions).toEqual([expect.objectContaining({ decision: "allowed", by: "mode" })]);
    expect(await readFile(join(project, "ran.txt"), "utf8")).toBe("ran\n");
  });

  it("a broken approvals file is an error naming the file and the field, and is not overwritten", async () => {
    await mkdir(join(base, "home", ".arbor"), { recursive: true });
    const broken = '{"version":1,"projects":{"/p":{"allow":[{"tool":""}]}}}';
    await writeFile(approvalFile, broken);
    const error = await readApprovalFile(approvalFile).catch((caught: unknown) => caught);
    expect(ApprovalError.isInstance(error)).toBe(true);
    expect((error as ApprovalError).message).toContain("field projects./p.allow.0.tool");
    const { results } = await runGated("ask", [WRITE], ["always"]);
    expect(results[0]).toContain("approvals.json");
    expect(await readFile(approvalFile, "utf8")).toBe(broken);
    await writeFile(approvalFile, "{not json");
    expect(
      ((await readApprovalFile(approvalFile).catch((e: unknown) => e)) as Error).message,
    ).toContain("is not JSON");
  });
});

describe("ApprovalGate and tool timeouts", () => {
  const slowTool = (delayMs: number) =>
    defineTool({
      name: "write",
      description: "test",
      parameters: z.object({ path: z.string() }),
      timeoutMs: 200,
      execute: (_args, { signal }) =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => resolve("written"), delayMs);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("stopped"));
          });
        }),
    });
  const context = () => ({ signal: new AbortController().signal, toolCallId: "c1" });

  it("does not count the wait for the user's answer against the tool's timeout, and keeps that timeout for the run", async () => {
    const gate = new ApprovalGate({
      mode: "ask",
      approvalFile,
      projectRealPath: project,
      ask: () => new Promise((resolve) => setTimeout(() => resolve("yes"), 1000)),
    });
    const [fast] = gate.wrap([slowTool(10) as unknown as AgentTool]);
    expect(fast?.timeoutMs).toBeGreaterThan(3_600_000);
    expect(await fast?.execute({ path: "a" }, context())).toBe("written");
    const [slow] = gate.wrap([slowTool(5_000) as unknown as AgentTool]);
    await expect(slow?.execute({ path: "a" }, context())).rejects.toThrow("timed out after 200 ms");
  });
});
