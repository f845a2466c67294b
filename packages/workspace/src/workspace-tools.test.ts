import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@arbor/providers/test";
import { createSession, isEntryOfType, messageText } from "@arbor/session-store";
import { AgentSession } from "@arbor/turn-runner";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_COMMAND_TIMEOUT_S } from "./operations/index.js";
import { WORKSPACE_TOOL_TIMEOUT_MS, workspaceTools } from "./workspace-tools.js";

let base: string;
let project: string;
const SECRET = "TOP-SECRET-5f7a2c9e";

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "arbor-workspace-tools-"));
  project = join(base, "project");
  await mkdir(join(project, "src"), { recursive: true });
  await mkdir(join(base, "outside"));
  await writeFile(join(base, "outside", "secret.txt"), SECRET);
  await writeFile(join(project, "src", "app.ts"), "export const answer = 42;\n");
  await symlink("/etc/passwd", join(project, "passwd"));
  await symlink(join(base, "outside"), join(project, "linked-dir"));
  await symlink(join(base, "outside", "secret.txt"), join(project, "chain-2"));
  await symlink("chain-2", join(project, "chain-1"));
  await symlink(join(base, "gone"), join(project, "dangling"));
  await symlink(join(project, "src", "app.ts"), join(project, "inside-link"));
  await symlink(".", join(project, "self-loop"));
  execFileSync("mkfifo", [join(project, "pipe")]);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Has a scripted model call each tool once, in order, then answer; returns the session file. */
async function runToolCalls(
  calls: Array<{ name: string; arguments: Record<string, unknown> }>,
  toolOutput?: { maxChars: number },
) {
  const session = await createSession({ dir: join(base, "sessions"), cwd: project });
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
    tools: workspaceTools(project),
    ...(toolOutput ? { toolOutput } : {}),
  });
  const run = agent.prompt("read things");
  for await (const _event of run.events) {
    // drain
  }
  await run.result;
  await agent.shutdown();
  // Calls may finish in any order; results are put back in call order.
  const results = session
    .getEntries()
    .flatMap((entry) =>
      isEntryOfType(entry, "message") && entry.message.role === "toolResult" ? [entry.message] : [],
    )
    .map((message) => ({
      index: Number(String((message as { toolCallId?: unknown }).toolCallId).slice(5)),
      text: messageText(message),
      isError: (message as { isError?: unknown }).isError === true,
    }))
    .sort((a, b) => a.index - b.index)
    .map(({ text, isError }) => ({ text, isError }));
  const file = session.location;
  await session.close();
  return { results, stored: await readFile(file, "utf8") };
}

describe("workspaceTools in a session", () => {
  it("refuses symlinks and paths out of the workspace; no outside text reaches the session file", async () => {
    const outside = [
      "passwd",
      "linked-dir/secret.txt",
      "chain-1",
      "../outside/secret.txt",
      join(base, "outside", "secret.txt"),
      "/etc/passwd",
      "/proc/self/environ",
      "/proc/self/root/etc/passwd",
      `/proc/self/root${join(base, "outside", "secret.txt")}`,
      "./../outside/secret.txt",
      "linked-dir/",
    ];
    const { results, stored } = await runToolCalls([
      ...outside.map((path) => ({ name: "read", arguments: { path } })),
      { name: "ls", arguments: { path: "linked-dir" } },
      { name: "ls", arguments: { path: ".." } },
    ]);
    expect(results).toHaveLength(outside.length + 2);
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.text).toContain("is outside the working directory");
    }
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain("root:x:0:0");
    expect(stored).not.toMatch(/PATH=|HOME=/);
  });

  it("reads inside (also through an inside link), refuses a FIFO, a dangling link and a directory, and lists without following links", async () => {
    const { results } = await runToolCalls([
      { name: "read", arguments: { path: "inside-link" } },
      { name: "read", arguments: { path: "src/app.ts" } },
      { name: "read", arguments: { path: "pipe" } },
      { name: "read", arguments: { path: "dangling" } },
      { name: "read", arguments: { path: "src" } },
      { name: "ls", arguments: { path: ".", depth: 5 } },
    ]);
    expect(results.slice(0, 2)).toEqual([
      { text: "export const answer = 42;\n", isError: false },
      { text: "export const answer = 42;\n", isError: false },
    ]);
    expect(results[2]).toMatchObject({ isError: true });
    expect(results[2]?.text).toContain("is a named pipe (FIFO), not a regular file");
    expect(results[3]?.text).toContain("does not exist");
    expect(results[4]?.text).toContain("is a directory, not a regular file");
    expect(results[5]).toEqual({
      text: [
        "chain-1@",
        "chain-2@",
        "dangling@",
        "inside-link@",
        "linked-dir@",
        "passwd@",
        "pipe [fifo]",
        "self-loop@",
        "src/",
        "src/app.ts",
      ].join("\n"),
      isError: false,
    });
  });

  it("bounds list_files by entries", async () => {
    for (let i = 0; i < 600; i++)
      await writeFile(join(project, "src", `f${String(i).padStart(3, "0")}`), "");
    const { results } = await runToolCalls([{ name: "ls", arguments: { path: "src" } }]);
    const lines = results[0]?.text.split("\n") ?? [];
    expect(lines).toHaveLength(501);
    expect(lines.at(-1)).toBe("[ls stopped at 500 entries; list a subfolder to see more]");
  });

  it("keeps a long command output whole behind a handle the model reads on with", async () => {
    const { results } = await runToolCalls(
      [
        { name: "bash", arguments: { command: "seq 1 20000" } },
        { name: "write", arguments: { path: "src/new.ts", content: "x" } },
        { name: "edit", arguments: { path: "src/app.ts", oldText: "42", newText: "43" } },
        { name: "write", arguments: { path: "passwd", content: "x" } },
      ],
      { maxChars: 1000 },
    );
    expect(results[0]?.text).toMatch(/The full output is stored as out_[0-9a-f]{16}/);
    expect(results[0]?.text.startsWith("1\n2\n3\n")).toBe(true);
    expect(results[1]).toEqual({ text: "Created src/new.ts (1 bytes).", isError: false });
    expect(results[2]?.text).toContain("-export const answer = 42;\n+export const answer = 43;");
    expect(results[3]).toMatchObject({ isError: true });
    expect(results[3]?.text).toContain("is a symbolic link");
    expect(await readFile("/etc/passwd", "utf8")).not.toBe("x");
  });

  it("gives every tool a timeout of its own; bash's covers its longest command", () => {
    const tools = workspaceTools(project);
    expect(tools.map((tool) => [tool.name, tool.timeoutMs])).toEqual([
      ["read", WORKSPACE_TOOL_TIMEOUT_MS],
      ["write", WORKSPACE_TOOL_TIMEOUT_MS],
      ["edit", WORKSPACE_TOOL_TIMEOUT_MS],
      ["bash", (MAX_COMMAND_TIMEOUT_S + 30) * 1000],
      ["grep", WORKSPACE_TOOL_TIMEOUT_MS],
      ["find", WORKSPACE_TOOL_TIMEOUT_MS],
      ["ls", WORKSPACE_TOOL_TIMEOUT_MS],
    ]);
  });
});
