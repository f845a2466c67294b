import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentDefinition, definitionOf } from "@arbor/orchestration";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loadServerAgents,
  parseServerConfigText,
  parseServerOptions,
  ServerConfigError,
  startServer,
} from "../src/index.js";
import { EXAMPLES, TEST_EXTENSIONS } from "./helpers/extension-server.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-ext-config-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const base = "providers:\n  openai: { api: openai-chat, apiKeyEnv: OPENAI_KEY }\n";
const env = { OPENAI_KEY: "k" };

async function load(text: string) {
  const config = parseServerConfigText(text, "s.yaml");
  return loadServerAgents(config, join(dir, "s.yaml"), env);
}

async function problem(text: string): Promise<ServerConfigError> {
  try {
    await load(text);
  } catch (error) {
    if (ServerConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the config loaded");
}

const agentWith = (paths: string[]) =>
  `${base}agents:\n  - name: ext\n    models: [openai]\n    extensions:\n${paths.map((p) => `      - ${p}`).join("\n")}\n`;

describe("extensions at start-up", { timeout: 30_000 }, () => {
  it("a missing, broken or misbehaving extension stops the start, naming agent, field and reason", async () => {
    await mkdir(join(dir, "a-folder"));
    const cases: Array<[string[], RegExp, RegExp]> = [
      [["./missing.ts"], /^agent "ext"\.extensions\[0\]$/, /missing\.ts: no such file/],
      [
        [join(EXAMPLES, "bookmark.ts"), "a-folder"],
        /^agent "ext"\.extensions\[1\]$/,
        /a-folder: not a file/,
      ],
      [[join(TEST_EXTENSIONS, "broken-syntax.js")], /extensions\[0\]$/, /could not load/],
      [[join(TEST_EXTENSIONS, "no-default.ts")], /extensions\[0\]$/, /could not load/],
      [
        [join(TEST_EXTENSIONS, "throws-in-factory.ts")],
        /extensions\[0\]$/,
        /no configuration for the gate/,
      ],
    ];
    for (const [paths, field, reason] of cases) {
      const error = await problem(agentWith(paths));
      expect(error.source).toBe(join(dir, "s.yaml"));
      expect(error.field).toMatch(field);
      expect(error.reason).toMatch(reason);
    }
  });

  it("resolves an inline agent's paths against the config file and an agent file's against that file", async () => {
    await mkdir(join(dir, "ext"));
    await mkdir(join(dir, "agents"));
    await writeFile(
      join(dir, "ext", "gate.ts"),
      'export default (arbor) => arbor.registerCommand("hi", { description: "Says hi", handler: () => undefined });\n',
    );
    await writeFile(
      join(dir, "agents", "filed.md"),
      "---\nmodels: [openai]\nextensions: [../ext/gate.ts]\n---\nYou help.\n",
    );
    const { agents, extensions } = await load(
      `${base}agents:\n  - { name: inline, models: [openai], extensions: [ext/gate.ts] }\n  - file: agents/filed.md\n`,
    );
    expect(definitionOf(agents.get("inline") as AgentDefinition).extensions).toEqual([
      join(dir, "ext", "gate.ts"),
    ]);
    expect(definitionOf(agents.get("filed") as AgentDefinition).extensions).toEqual([
      join(dir, "ext", "gate.ts"),
    ]);
    for (const agent of ["inline", "filed"]) {
      expect(extensions.commandsOf(agent)).toEqual([
        { name: "hi", description: "Says hi", extension: "gate.ts" },
      ]);
    }
  });

  it("the extensions section is checked like the rest of the file", () => {
    expect(() => parseServerConfigText("extensions:\n  uiTimeoutMs: soon\n", "s.yaml")).toThrow(
      /s\.yaml: extensions\.uiTimeoutMs: /,
    );
    expect(() => parseServerConfigText("extensions:\n  uiTimeout: 5\n", "s.yaml")).toThrow(
      /extensions\.uiTimeout: /,
    );
    expect(parseServerConfigText("{}", "s.yaml").extensions).toEqual({
      uiTimeoutMs: 300_000,
      handlerTimeoutMs: 10_000,
    });
  });

  it("arbor-server does not listen when an extension is broken", async () => {
    const configPath = join(dir, "s.yaml");
    await writeFile(
      configPath,
      `port: 0\n${agentWith([join(TEST_EXTENSIONS, "throws-in-factory.ts")])}`,
    );
    const error = await startServer(parseServerOptions(["--config", configPath], env), {
      env: { ...env, ARBOR_HOME: dir },
      version: "0",
      print: () => undefined,
    }).then(
      async (server) => {
        await server.close();
        return undefined;
      },
      (thrown: unknown) => thrown,
    );
    expect(ServerConfigError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /s\.yaml: agent "ext"\.extensions\[0\]: .*throws-in-factory\.ts: .*no configuration for the gate/,
    );
  });

  it("a run whose extension no longer loads fails (it never runs without its gate)", async () => {
    const { FakeProviderServer } = await import("@arbor/providers/test");
    const fake = await FakeProviderServer.start({ fallback: () => "answered" });
    const gate = join(dir, "gate.ts");
    await writeFile(gate, "export default (arbor) => arbor.on('tool_call', () => undefined);\n");
    const configPath = join(dir, "s.yaml");
    await writeFile(
      configPath,
      [
        "port: 0",
        `providers:\n  fake: { api: openai-chat, baseURL: ${fake.openaiBaseURL}, apiKeyEnv: OPENAI_KEY }`,
        "agents:\n  - { name: ext, models: [fake/m], systemPrompt: You help., extensions: [gate.ts] }",
      ].join("\n"),
    );
    const admin = "admin-key-0123456789abcdef";
    const serverEnv = { ...env, ARBOR_ADMIN_KEY: admin, ARBOR_HOME: join(dir, "home") };
    const printed: string[] = [];
    const server = await startServer(parseServerOptions(["--config", configPath], serverEnv), {
      env: serverEnv,
      version: "0",
      print: (line) => printed.push(line),
    });
    try {
      const post = async (path: string, json: unknown, key: string) =>
        (await (
          await fetch(`${server.url}${path}`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify(json),
          })
        ).json()) as Record<string, string>;
      const tenant = await post("/v1/admin/tenants", { name: "t" }, admin);
      const { key } = (await post(`/v1/admin/tenants/${tenant.id}/keys`, {}, admin)) as {
        key: string;
      };
      await writeFile(
        gate,
        "export default (arbor) => { throw new Error('gate config gone'); };\n",
      );
      const session = await post("/v1/sessions", {}, key);
      const run = await post(
        `/v1/sessions/${session.id}/runs`,
        { agent: "ext", prompt: "hi" },
        key,
      );
      let record: Record<string, unknown> = {};
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${server.url}/v1/runs/${run.runId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        record = (await res.json()) as Record<string, unknown>;
        if (record.status !== "queued" && record.status !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(record.status).toBe("failed");
      expect(record.error).toMatchObject({ code: "extension_load_failed" });
      expect(String((record.error as { message: string }).message)).toContain("gate config gone");
      expect(fake.requests).toHaveLength(0);
      expect(printed.join("\n")).toContain("gate config gone");
    } finally {
      await server.close();
      await fake.close();
    }
  });
});
