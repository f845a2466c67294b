import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  helpText,
  loadServerAgents,
  parseServerConfigText,
  parseServerOptions,
  readServerConfigFile,
  ServerConfigError,
} from "../src/index.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-config-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

function configError(run: () => unknown): ServerConfigError {
  try {
    run();
  } catch (error) {
    if (ServerConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("no error");
}

async function configErrorOf(run: () => Promise<unknown>): Promise<ServerConfigError> {
  try {
    await run();
  } catch (error) {
    if (ServerConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("no error");
}

describe("options", () => {
  it("reads flags, then the environment, flags winning", () => {
    const env = {
      ARBOR_SERVER_PORT: "9000",
      ARBOR_SERVER_HOST: "0.0.0.0",
      ARBOR_HOME: "/data/arbor",
      ARBOR_SERVER_DATABASE: "postgres://db/a",
    };
    expect(parseServerOptions([], env)).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      home: "/data/arbor",
      database: "postgres://db/a",
    });
    expect(
      parseServerOptions(["--port", "8080", "--host=::1", "--config", "a.yaml"], env),
    ).toMatchObject({
      port: 8080,
      host: "::1",
      configPath: "a.yaml",
    });
    expect(parseServerOptions(["--help"], {}).help).toBe(true);
  });

  it("names the flag or variable at fault", () => {
    for (const [argv, env, source] of [
      [["--port", "http"], {}, "--port"],
      [["--port", "70000"], {}, "--port"],
      [[], { ARBOR_SERVER_PORT: "-1" }, "ARBOR_SERVER_PORT"],
      [["--port"], {}, "command line"],
      [["--colour", "red"], {}, "command line"],
      [["--home", ""], {}, "--home"],
    ] as const) {
      const error = configError(() => parseServerOptions(argv, env));
      expect(error.source).toBe(source);
      expect(error.message).toContain(source);
    }
  });

  it("documents every option and its environment variable in --help", () => {
    const text = helpText();
    for (const name of [
      "--config",
      "--port",
      "--host",
      "--database",
      "--home",
      "ARBOR_SERVER_PORT",
      "ARBOR_HOME",
      "ARBOR_ADMIN_KEY",
      "Bearer",
    ]) {
      expect(text).toContain(name);
    }
  });
});

/** YAML whose aliases expand to 10^9 nodes. */
function aliasBomb(): string {
  let text = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (let i = 1; i < 9; i++)
    text += `l${i}: &l${i} [${Array(10)
      .fill(`*l${i - 1}`)
      .join(", ")}]\n`;
  return text;
}

describe("config file", () => {
  it("names the field and the reason of a bad config", () => {
    const cases: Array<[string, string, RegExp]> = [
      ["port: eighty\n", "port", /expected number/],
      ["limits:\n  bodyBytes: 10\n", "limits.bodyBytes", /1024/],
      ["limits:\n  bodyBites: 2048\n", "limits.bodyBites", /nrecognized/],
      ["providers:\n  x:\n    api: grpc\n", "providers.x.api", /openai-chat/],
      ["agents:\n  - {}\n", "agents[0]", /./],
      ["cors:\n  origins: []\n", "cors.origins", /./],
      ["port: 1\nport: 2\n", "(file)", /YAML/],
      ["host: [1]\n", "host", /expected string/],
      [aliasBomb(), "(file)", /Excessive alias count/],
    ];
    for (const [text, field, reason] of cases) {
      const error = configError(() => parseServerConfigText(text, "server.yaml"));
      expect({ text, field: error.field }).toEqual({ text, field });
      expect(error.reason).toMatch(reason);
      expect(error.message.startsWith(`server.yaml: ${field}: `)).toBe(true);
    }
  });

  it("reports a missing file and a file that is too big", async () => {
    expect((await configErrorOf(() => readServerConfigFile(join(dir, "none.yaml")))).reason).toBe(
      "no such file",
    );
    await writeFile(join(dir, "big.yaml"), `# ${"x".repeat(2 * 1024 * 1024)}\n`);
    expect((await configErrorOf(() => readServerConfigFile(join(dir, "big.yaml")))).reason).toMatch(
      /larger than/,
    );
  });

  it("loads inline agents, agent files and folders, with provider keys from the environment", async () => {
    await writeFile(join(dir, "reviewer.md"), "---\nmodels: [openai/gpt-4.1]\n---\nYou review.\n");
    const config = parseServerConfigText(
      [
        "providers:",
        "  openai: { api: openai-chat, apiKeyEnv: OPENAI_KEY }",
        "agents:",
        "  - file: reviewer.md",
        "  - name: helper",
        "    models: [openai]",
      ].join("\n"),
      "s.yaml",
    );
    const loaded = await loadServerAgents(config, join(dir, "s.yaml"), { OPENAI_KEY: "sk-test" });
    expect([...loaded.agents.keys()]).toEqual(["reviewer", "helper"]);
    expect(loaded.providers.providers.openai?.apiKey).toBe("sk-test");
  });

  it("refuses an unset key variable, an unknown provider, a broken agent file and a duplicate name", async () => {
    await writeFile(join(dir, "bad.md"), "---\nmodels: 5\n---\nx\n");
    await writeFile(join(dir, "dup.md"), "---\nname: helper\nmodels: [openai]\n---\nx\n");
    const base = "providers:\n  openai: { api: openai-chat, apiKeyEnv: OPENAI_KEY }\n";
    const cases: Array<[string, Record<string, string>, RegExp, RegExp]> = [
      [
        `${base}agents:\n  - { name: a, models: [openai] }\n`,
        {},
        /providers\.openai\.apiKeyEnv/,
        /OPENAI_KEY is not set/,
      ],
      [
        `${base}agents:\n  - { name: a, models: [anthropic] }\n`,
        { OPENAI_KEY: "k" },
        /agent "a"\.models/,
        /anthropic/,
      ],
      [`${base}agents:\n  - file: bad.md\n`, { OPENAI_KEY: "k" }, /agents\[0\]\.models/, /bad\.md/],
      [`${base}agents:\n  - file: missing.md\n`, { OPENAI_KEY: "k" }, /agents\[0\]/, /missing\.md/],
      [
        `${base}agents:\n  - { name: t, models: [openai], tools: [bash] }\n`,
        { OPENAI_KEY: "k" },
        /agent "t"\.tools/,
        /no app tools \(asked for bash\)/,
      ],
      [
        `${base}agents:\n  - { name: ext, models: [openai], extensions: [./x.js] }\n`,
        { OPENAI_KEY: "k" },
        /agent "ext"\.extensions\[0\]/,
        /x\.js: no such file/,
      ],
      [
        `${base}agents:\n  - { name: helper, models: [openai] }\n  - file: dup.md\n`,
        { OPENAI_KEY: "k" },
        /agents\[1\]/,
        /second agent named "helper"/,
      ],
    ];
    for (const [text, env, field, reason] of cases) {
      const config = parseServerConfigText(text, "s.yaml");
      const error = await configErrorOf(() => loadServerAgents(config, join(dir, "s.yaml"), env));
      expect(error.field).toMatch(field);
      expect(error.reason).toMatch(reason);
    }
  });
});
