import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveArborPaths, sessionDirFor } from "../paths.js";
import { runCli, writeRawSession } from "./cli-run.test-util.js";

// `arbor run` goes through the agent host: these check that what reaches the user, the
// provider and the session files is what it was before the host.

let server: FakeProviderServer;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await FakeProviderServer.start({
    fallback: () => ({ blocks: [{ type: "text", text: "ok" }] }),
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "arbor-run-host-"));
  project = join(home, "project");
  await mkdir(project, { recursive: true });
  env = {
    HOME: home,
    ARBOR_HOME: join(home, ".arbor"),
    OPENAI_API_KEY: "test-key",
    OPENAI_BASE_URL: server.openaiBaseURL,
  };
  await writeConfig({ autoTitle: false });
  server.requests.length = 0;
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function writeConfig(config: Record<string, unknown>): Promise<void> {
  await mkdir(join(home, ".arbor"), { recursive: true });
  await writeFile(join(home, ".arbor", "config.json"), JSON.stringify(config));
}

function lines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function allSessionFiles(): Promise<string[]> {
  const root = resolveArborPaths(env).sessionsRoot;
  const dirs = await readdir(root).catch(() => [] as string[]);
  const files: string[] = [];
  for (const dir of dirs) {
    for (const name of await readdir(join(root, dir))) {
      if (name.endsWith(".jsonl")) files.push(join(root, dir, name));
    }
  }
  return files;
}

describe("arbor run on the agent host", () => {
  const choices = [
    { name: "a pi file outside Arbor's folder, by absolute path", where: "outside", arg: "abs" },
    { name: "a pi file outside Arbor's folder, by relative path", where: "outside", arg: "rel" },
    { name: "an Arbor session, by a prefix of its id", where: "store", arg: "prefix" },
    { name: "the newest Arbor session, with --continue", where: "store", arg: "continue" },
  ] as const;

  it.each(choices)("answers in $name, keeping every line it had", async ({ where, arg }) => {
    const id = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    const dir =
      where === "outside"
        ? join(home, ".pi", "agent", "sessions", "x")
        : sessionDirFor(resolveArborPaths(env), project);
    const fileName = where === "outside" ? "pi.jsonl" : `2025-01-01T00-00-00-000Z_${id}.jsonl`;
    const file = await writeRawSession(dir, fileName, { id, cwd: project, title: "kept" });
    const before = await readFile(file, "utf8");
    const flag =
      arg === "abs"
        ? ["--session", file]
        : arg === "rel"
          ? ["--session", relative(project, file)]
          : arg === "prefix"
            ? ["--session", id.slice(0, 8)]
            : ["--continue"];
    server.script("the answer");

    const { code, stdout, stderr } = await runCli(["run", "--json", ...flag, "next question"], {
      cwd: project,
      env,
    });

    expect(stderr).toBe("");
    expect(code).toBe(0);
    const output = JSON.parse(stdout) as Record<string, unknown>;
    expect(output).toMatchObject({
      success: true,
      sessionId: id,
      title: "kept",
      text: "the answer",
    });
    const after = await readFile(file, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const added = lines(after.slice(before.length));
    // The built-in system prompt of this run is recorded before the prompt.
    expect(
      added.map((entry) => entry.customType ?? (entry.message as { role?: string }).role),
    ).toEqual(["arbor.system-prompt", "user", "assistant"]);
    // The user's conversation continued: the previous answer was sent with the new prompt.
    const body = server.requests.filter((r) => r.method === "POST")[0]?.body as {
      messages: { role: string }[];
    };
    expect(body.messages.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
    ]);
    // No second session was made anywhere in Arbor's folder.
    expect((await allSessionFiles()).filter((path) => path !== file)).toEqual([]);
  });

  it.each([
    { systemPrompt: undefined, sent: [expect.stringMatching(/^You are Arbor, a coding agent/)] },
    { systemPrompt: "", sent: [] },
    { systemPrompt: "Be terse.", sent: ["Be terse."] },
  ])(
    "sends the built-in system prompt, the config's, or none for an empty one ($systemPrompt)",
    async (row) => {
      await writeConfig({
        autoTitle: false,
        ...(row.systemPrompt !== undefined ? { systemPrompt: row.systemPrompt } : {}),
      });
      server.script("fine");
      const { code } = await runCli(["run", "hello"], { cwd: project, env });
      expect(code).toBe(0);
      const body = server.requests.filter((r) => r.method === "POST")[0]?.body as {
        messages: { role: string; content: unknown }[];
      };
      const system = body.messages.filter((message) => message.role === "system");
      expect(system.map((message) => message.content)).toEqual(row.sent);
    },
  );

  it.each([
    { config: "low", stored: "high", sent: "low" },
    { config: "high", stored: "minimal", sent: "high" },
    { config: undefined, stored: "high", sent: "high" },
    { config: "medium", stored: undefined, sent: "medium" },
    { config: undefined, stored: undefined, sent: undefined },
  ])(
    "asks for the config's thinking level over the session's (config $config, session $stored)",
    async (row) => {
      await writeConfig({ autoTitle: false, ...(row.config ? { thinking: row.config } : {}) });
      const id = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c";
      const file = await writeRawSession(
        sessionDirFor(resolveArborPaths(env), project),
        `2025-01-01T00-00-00-000Z_${id}.jsonl`,
        { id, cwd: project },
      );
      if (row.stored) {
        const change = {
          type: "thinking_level_change",
          id: "t1",
          parentId: "e2",
          timestamp: "2025-01-01T00:00:00.000Z",
          thinkingLevel: row.stored,
        };
        await writeFile(file, `${await readFile(file, "utf8")}${JSON.stringify(change)}\n`);
      }
      server.script("thought");
      const { code, stderr } = await runCli(
        ["run", "--model", "o4-mini", "--session", id, "think"],
        { cwd: project, env },
      );
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const body = server.requests.filter((r) => r.method === "POST")[0]?.body as {
        reasoning_effort?: string;
      };
      expect(body.reasoning_effort).toBe(row.sent);
    },
  );

  it.each(["", "   ", "\t"])(
    "reports a blank API key (%j) as missing, with the fix",
    async (key) => {
      await writeConfig({
        autoTitle: false,
        providers: { local: { api: "openai-chat", apiKeyEnv: "LOCAL_KEY" } },
      });
      const { code, stderr } = await runCli(["run", "hello"], {
        cwd: project,
        env: { HOME: home, ARBOR_HOME: join(home, ".arbor"), LOCAL_KEY: key },
      });
      expect(code).toBe(1);
      expect(stderr).toContain('the provider "local" has no API key.');
      expect(stderr).toContain("set the environment variable LOCAL_KEY");
      expect(server.requests.filter((r) => r.method === "POST")).toEqual([]);
      expect(await allSessionFiles()).toEqual([]);
    },
  );
});
