import { type ChildProcess, spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ModelMessage } from "@arbor/providers";
import { ScriptedModel } from "@arbor/providers/test";
import { openSessionFile, type Session } from "@arbor/session-store";
import { build } from "tsup";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentSession, FAILOVER_CUSTOM_TYPE, toModelMessages } from "../../src/index.js";
import { addTool, drain } from "../factories.js";
import type { ChildReport } from "./crash-child.js";

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// Inside the package, so the bundled child resolves the workspace dependencies.
const BUNDLE_DIR = join(PACKAGE_DIR, "node_modules", ".cache", "arbor-crash-test");
const CHILD = join(BUNDLE_DIR, "crash-child.js");

let workDir = "";

beforeAll(async () => {
  await mkdir(BUNDLE_DIR, { recursive: true });
  // The child runs the current source, bundled; dependencies stay external.
  await build({
    entry: { "crash-child": join(PACKAGE_DIR, "test", "crash", "crash-child.ts") },
    outDir: BUNDLE_DIR,
    format: ["esm"],
    target: "node20",
    platform: "node",
    silent: true,
    clean: false,
    dts: false,
    config: false,
    external: [/^@arbor\//, "zod"],
  });
  workDir = await mkdtemp(join(tmpdir(), "arbor-crash-"));
}, 60_000);

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A running child and every line it reported so far. */
interface Child {
  process: ChildProcess;
  reports: ChildReport[];
  /** Resolves with the reports once one matches. */
  until(match: (report: ChildReport, all: ChildReport[]) => boolean): Promise<ChildReport[]>;
  killed: Promise<NodeJS.Signals | null>;
}

function startChild(path: string, plan: string): Child {
  const child = spawn(process.execPath, [CHILD, path, plan], { stdio: ["ignore", "pipe", "pipe"] });
  const reports: ChildReport[] = [];
  const waiters: Array<() => void> = [];
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    reports.push(JSON.parse(line) as ChildReport);
    for (const wake of waiters.splice(0)) wake();
  });
  const killed = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on("exit", (_code, signal) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(signal);
    }),
  );
  return {
    process: child,
    reports,
    killed,
    until: (match) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (reports.some((report) => match(report, reports))) return resolve([...reports]);
          if (child.exitCode !== null || child.signalCode !== null) {
            return reject(new Error(`the child exited before the kill point; stderr:\n${stderr}`));
          }
          waiters.push(check);
        };
        check();
      }),
  };
}

/** Entry ids the runner acknowledged (reported in message_end / tool_result events). */
function acknowledged(reports: readonly ChildReport[]): string[] {
  return reports.flatMap((report) =>
    report.type === "event" && report.event.entryId ? [report.event.entryId] : [],
  );
}

const eventsOf = (reports: readonly ChildReport[], type: string) =>
  reports.filter((report) => report.type === "event" && report.event.type === type);

/** Every tool call in the request has exactly one result right after its answer. */
function expectValidContext(messages: readonly ModelMessage[]): void {
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant") continue;
    const calls = message.content.flatMap((part) => (part.type === "toolCall" ? [part.id] : []));
    const results = messages
      .slice(i + 1, i + 1 + calls.length)
      .map((next) => (next.role === "toolResult" ? next.toolCallId : undefined));
    expect(results.sort()).toEqual([...calls].sort());
  }
}

async function killAndReopen(
  child: Child,
  path: string,
  reports: ChildReport[],
): Promise<{ session: Session; acked: string[] }> {
  child.process.kill("SIGKILL");
  expect(await child.killed).toBe("SIGKILL");
  const acked = acknowledged(reports);
  // The dead process still "holds" the lock; reopening must take it over.
  const session = await openSessionFile(path);
  for (const id of acked) expect(session.getEntry(id), `acknowledged entry ${id}`).toBeDefined();
  return { session, acked };
}

/** A new prompt on the resumed session succeeds and sends a valid context. */
async function expectResumes(session: Session): Promise<ModelMessage[]> {
  const model = new ScriptedModel({ responses: ["Resumed."] });
  const { result } = await drain(
    new AgentSession({ targets: [{ model }], session, tools: [addTool] }).prompt("Go on"),
  );
  expect(result).toMatchObject({ success: true, turns: 1 });
  const request = model.requests[0]?.messages ?? [];
  expect(request.at(-1)).toEqual({ role: "user", content: "Go on" });
  expectValidContext(request);
  await session.close();
  const reopened = await openSessionFile(path(session), { readOnly: true });
  expect(reopened.problems.filter((problem) => problem.kind !== "torn_tail")).toEqual([]);
  expect(reopened.getBranch().at(-1)).toMatchObject({
    message: { role: "assistant", content: [{ type: "text", text: "Resumed." }] },
  });
  await reopened.close();
  return request;
}

const path = (session: Session) => session.location;
const roles = (session: Session) =>
  session.buildSessionContext().messages.map((message) => message.role);

describe("SIGKILL and resume", () => {
  it("mid-stream: the finished turn survives, the cut answer leaves no trace, and the session resumes", async () => {
    const file = join(workDir, "mid-stream.jsonl");
    const child = startChild(file, "mid-stream");
    const reports = await child.until((_r, all) => eventsOf(all, "text_delta").length >= 10);
    const { session, acked } = await killAndReopen(child, file, reports);
    expect(acked).toHaveLength(2); // the tool-call answer and its result
    expect(session.problems).toEqual([]);
    expect(roles(session)).toEqual(["user", "assistant", "toolResult"]);
    expectValidContext(toModelMessages(session.buildSessionContext().messages));
    const request = await expectResumes(session);
    expect(request.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "user",
    ]);
  }, 30_000);

  it("mid-tool: the finished result is kept, the unfinished call gets an interrupted result", async () => {
    const file = join(workDir, "mid-tool.jsonl");
    const child = startChild(file, "mid-tool");
    const reports = await child.until(
      (_r, all) =>
        all.some((report) => report.type === "tool_started" && report.toolCallId === "slow") &&
        eventsOf(all, "tool_result").length === 1,
    );
    const { session, acked } = await killAndReopen(child, file, reports);
    expect(acked).toHaveLength(2); // the answer with both calls, the fast result
    expect(roles(session)).toEqual(["user", "assistant", "toolResult"]);
    const request = await expectResumes(session);
    expect(request.slice(2, 4)).toEqual([
      expect.objectContaining({ role: "toolResult", toolCallId: "fast", isError: false }),
      expect.objectContaining({ role: "toolResult", toolCallId: "slow", isError: true }),
    ]);
  }, 30_000);

  it("between turns: everything of the finished turn is present and the session resumes", async () => {
    const file = join(workDir, "between-turns.jsonl");
    const child = startChild(file, "between-turns");
    const reports = await child.until((_r, all) => eventsOf(all, "turn_start").length === 2);
    const { session, acked } = await killAndReopen(child, file, reports);
    expect(acked).toHaveLength(2);
    expect(roles(session)).toEqual(["user", "assistant", "toolResult"]);
    await expectResumes(session);
  }, 30_000);

  it("during a backoff wait: the failed attempt's failover record is there and the session resumes", async () => {
    const file = join(workDir, "during-backoff.jsonl");
    const child = startChild(file, "during-backoff");
    const reports = await child.until((_r, all) => eventsOf(all, "retry").length === 1);
    const { session } = await killAndReopen(child, file, reports);
    expect(session.getBranch().map((entry) => entry.type)).toEqual(["message", "custom"]);
    expect(session.getBranch().at(-1)).toMatchObject({
      customType: FAILOVER_CUSTOM_TYPE,
      data: { kind: "network_error", action: "retry", delayMs: 60_000 },
    });
    expect(roles(session)).toEqual(["user"]);
    const request = await expectResumes(session);
    expect(request.map((message) => message.role)).toEqual(["user", "user"]);
  }, 30_000);

  it("in a second prompt: the first prompt's conversation is intact", async () => {
    const file = join(workDir, "second-prompt.jsonl");
    const child = startChild(file, "second-prompt");
    const reports = await child.until((_r, all) => eventsOf(all, "text_delta").length >= 5);
    const { session, acked } = await killAndReopen(child, file, reports);
    expect(acked).toHaveLength(1);
    // The second user message was appended before the model was called, so it is there too.
    expect(roles(session)).toEqual(["user", "assistant", "user"]);
    const request = await expectResumes(session);
    expect(request.map((message) => message.role)).toEqual(["user", "assistant", "user", "user"]);
  }, 30_000);

  it("a write torn by the kill loses only the torn line; the next append is not swallowed", async () => {
    const file = join(workDir, "torn.jsonl");
    const child = startChild(file, "mid-stream");
    const reports = await child.until((_r, all) => eventsOf(all, "text_delta").length >= 3);
    child.process.kill("SIGKILL");
    await child.killed;
    // What a write cut half-way leaves behind: the start of a line without its newline.
    await appendFile(file, '{"type":"message","id":"torn1","parentId":');
    const session = await openSessionFile(file);
    expect(session.problems.map((problem) => problem.kind)).toEqual(["torn_tail"]);
    for (const id of acknowledged(reports)) expect(session.getEntry(id)).toBeDefined();
    expect(roles(session)).toEqual(["user", "assistant", "toolResult"]);
    await expectResumes(session);
    const lines = (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
    expect(lines.at(-1)).toMatch(/"Resumed\."/);
  }, 30_000);
});
