import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveArborPaths, sessionDirFor } from "../paths.js";
import { runCli } from "./cli-run.test-util.js";

// `arbor run --agent` runs the repository's example support desk (a router with two
// destinations, a sub-agent and a handoff) through the real OpenAI adapter against the
// fake server, which answers each agent by its system prompt.

const examples = fileURLToPath(new URL("../../../../examples/agents/", import.meta.url));

const call = (name: string, args: Record<string, unknown>): ScriptedResponseInput => ({
  blocks: [{ type: "toolCall", id: `c_${name}`, name, arguments: args }],
});

function systemPrompt(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === "system");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
}

function lastRole(body: Record<string, unknown>): string | undefined {
  const messages = (body.messages ?? []) as { role: string }[];
  return messages.at(-1)?.role;
}

/** Each agent of the support desk, told apart by its system prompt. */
function supportDesk(body: Record<string, unknown>): ScriptedResponseInput {
  const system = systemPrompt(body);
  if (system.includes("front desk")) {
    return call("router__handoff-to", { agent: "tech", message: "upload fails: ECONNRESET" });
  }
  if (system.includes("technical problems")) {
    return lastRole(body) === "tool"
      ? "1. Retry the upload. 2. Raise your proxy timeout."
      : call("agent__log-reader", { error: "ECONNRESET" });
  }
  if (system.includes("error message")) return "The proxy closed the connection after 30 s.";
  if (system.includes("friendly"))
    return "Sorry! 1. Retry the upload. 2. Raise your proxy timeout.";
  return "unexpected agent";
}

let server: FakeProviderServer;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await FakeProviderServer.start({ fallback: (body) => supportDesk(body) });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "arbor-run-agent-"));
  project = join(home, "project");
  await mkdir(project, { recursive: true });
  await cp(join(examples, "support-desk"), join(project, "agents"), { recursive: true });
  env = {
    HOME: home,
    ARBOR_HOME: join(home, ".arbor"),
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: server.openaiBaseURL,
  };
  await mkdir(join(home, ".arbor"), { recursive: true });
  await writeFile(join(home, ".arbor", "config.json"), JSON.stringify({ autoTitle: false }));
  return () => rm(home, { recursive: true, force: true });
});

async function sessions(): Promise<{ header: Record<string, unknown>; lines: unknown[] }[]> {
  const dir = sessionDirFor(resolveArborPaths(env), project);
  const files = (await readdir(dir)).filter((name) => name.endsWith(".jsonl"));
  return Promise.all(
    files.map(async (name) => {
      const lines = (await readFile(join(dir, name), "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      return { header: lines[0] ?? {}, lines: lines.slice(1) };
    }),
  );
}

describe("arbor run --agent", () => {
  it("routes, calls the sub-agent and hands off, showing each step, every agent in its session", async () => {
    const { code, stdout, stderr } = await runCli(
      ["run", "--agent", "agents/front-desk.md", "My upload fails with ECONNRESET"],
      { cwd: project, env },
    );
    expect(stderr).not.toMatch(/arbor:/);
    expect(code).toBe(0);
    expect(stdout).toContain("Sorry! 1. Retry the upload. 2. Raise your proxy timeout.");
    expect(stderr).toContain("[destination front-desk:tech started]");
    expect(stderr).toContain("[subagent front-desk:tech:log-reader started]");
    expect(stderr).toMatch(/\[subagent front-desk:tech:log-reader succeeded, \d+ tokens\]/);
    expect(stderr).toContain("[handoff front-desk:tone-check started]");
    expect(stderr).toContain("[answered by front-desk:tone-check; session ");

    const stored = await sessions();
    expect(stored).toHaveLength(4);
    const root = stored.find((session) => session.header.parentSession === undefined);
    expect(root).toBeDefined();
    const children = stored.filter((session) => session.header.parentSession !== undefined);
    expect(children).toHaveLength(3);
    // Each child is recorded in its parent's tree: the root, or tech for its log reader.
    for (const child of children) {
      // In session files, `parentSession` is the parent's file, as pi records it.
      const parent = stored.find((session) =>
        String(child.header.parentSession).endsWith(`_${session.header.id}.jsonl`),
      );
      expect(JSON.stringify(parent?.lines)).toContain(`"childSessionId":"${child.header.id}"`);
    }
  });

  it("exports the root session with its children embedded by sessions export --with-children", async () => {
    const { stdout } = await runCli(
      ["run", "--json", "--agent", "agents/front-desk.md", "My upload fails"],
      { cwd: project, env },
    );
    const rootId = (JSON.parse(stdout) as { session: { id: string } }).session.id;
    const childText = "The proxy closed the connection after 30 s.";
    const exportTo = async (name: string, extra: string[]) => {
      const out = join(project, name);
      const result = await runCli(["sessions", "export", rootId, out, ...extra], {
        cwd: project,
        env,
      });
      expect(result.code).toBe(0);
      return readFile(out, "utf8");
    };
    expect(await exportTo("plain.html", [])).not.toContain(childText);
    // The log reader is a grandchild (tech's sub-agent): embedded through tech's session.
    expect(await exportTo("tree.html", ["--with-children"])).toContain(childText);
  });

  it("remembers the agent file in the root session, so arbor -c opens the app on it", async () => {
    const { code, stdout } = await runCli(
      ["run", "--json", "--agent", "agents/front-desk.md", "My upload fails"],
      { cwd: project, env },
    );
    expect(code).toBe(0);
    const rootId = (JSON.parse(stdout) as { session: { id: string } }).session.id;
    const root = (await sessions()).find((session) => session.header.id === rootId);
    expect(root?.lines).toContainEqual(
      expect.objectContaining({
        type: "custom",
        customType: "arbor.cli.agent-file",
        data: { file: join(project, "agents", "front-desk.md") },
      }),
    );
  });

  it("prints the result object with --json, naming the final agent and each child", async () => {
    const { code, stdout } = await runCli(
      ["run", "--json", "--agent", "agents/front-desk.md", "My upload fails"],
      { cwd: project, env },
    );
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result).toMatchObject({ success: true, finalAgent: "front-desk:tone-check" });
    expect((result.children as { agentPath: string }[]).map((child) => child.agentPath)).toEqual([
      "front-desk:tech",
      "front-desk:tech:log-reader",
      "front-desk:tone-check",
    ]);
  });

  it.each([
    ["a missing agent file", "agents/nobody.md", /nobody\.md/],
    ["a destination that does not exist", "agents/broken-router.md", /router.*ghost\.md/s],
    ["an unknown key", "agents/misspelt.md", /advisers/],
    ["a cycle", "agents/loop-a.md", /cycle/i],
  ])("refuses %s before any model is called, naming it (exit 2)", async (_, file, message) => {
    const agents = join(project, "agents");
    const front = "---\nmodels: [openai/gpt-4.1-mini]\n";
    await writeFile(
      join(agents, "broken-router.md"),
      `${front}router:\n  destinations: [ghost.md]\n---\nRoute.\n`,
    );
    await writeFile(join(agents, "misspelt.md"), `${front}advisers: [tech.md]\n---\nHelp.\n`);
    await writeFile(join(agents, "loop-a.md"), `${front}handoff: loop-b.md\n---\nA.\n`);
    await writeFile(join(agents, "loop-b.md"), `${front}handoff: loop-a.md\n---\nB.\n`);
    const before = server.requests.length;
    const { code, stderr } = await runCli(["run", "--agent", file, "hello"], {
      cwd: project,
      env,
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(server.requests.length).toBe(before);
  });

  it("asks for a prompt", async () => {
    const { code, stderr } = await runCli(["run", "--agent", "agents/front-desk.md"], {
      cwd: project,
      env,
    });
    expect(code).toBe(2);
    expect(stderr).toContain("needs a prompt");
  });
});
