import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";
import { TmuxTerminal } from "./tmux-terminal.js";

let fake: FakeProviderServer;
/** A local server as Ollama and llama.cpp are: it lists its model at GET /v1/models. */
let local: Server;
let localURL: string;
let sandbox: Sandbox;
const terminals: TmuxTerminal[] = [];

beforeAll(async () => {
  fake = await startRoutedServer({ prompts: { "plain question": "a plain answer" } });
  const target = new URL(fake.openaiBaseURL);
  local = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ object: "list", data: [{ id: "qwen2.5-coder:7b", object: "model" }] }),
      );
      return;
    }
    const forward = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => local.listen(0, "127.0.0.1", resolve));
  localURL = `http://127.0.0.1:${(local.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  TmuxTerminal.shutdown();
  await new Promise((resolve) => local.close(resolve));
  await fake.close();
});
beforeEach(async () => {
  sandbox = await createSandbox();
  fake.requests.length = 0;
});
afterEach(async () => {
  for (const terminal of terminals.splice(0)) terminal.kill();
  await sandbox.remove();
});

/** Only HOME: no API key and no base URL in the environment. */
const bareEnv = () => ({ HOME: sandbox.home });
const lastChatModel = () =>
  (
    fake.requests.filter((r) => r.path === "/v1/chat/completions").at(-1)?.body as {
      model?: string;
    }
  )?.model;

describe("providers and models", () => {
  it("a local server needs no API key and, with no -m, serves its own model (not a priced cloud default)", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        providers: { ollama: { api: "openai-chat", baseURL: localURL } },
        autoTitle: false,
      }),
    );
    const result = await runArbor(["-p", "--output-format", "json", "plain question"], {
      cwd: sandbox.project,
      env: bareEnv(),
    });
    expect(result.stderr).not.toMatch(/API key/i);
    expect(result.code).toBe(0);
    expect(lastChatModel()).toBe("qwen2.5-coder:7b");
    expect(JSON.parse(result.stdout).cost).toBe(0);
  });

  it("OPENAI_BASE_URL pointing at a local server is honoured the same way", async () => {
    const result = await runArbor(["-p", "plain question"], {
      cwd: sandbox.project,
      env: { HOME: sandbox.home, OPENAI_BASE_URL: localURL },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("a plain answer");
    expect(lastChatModel()).toBe("qwen2.5-coder:7b");
  });

  it("ANTHROPIC_BASE_URL is honoured", async () => {
    const result = await runArbor(["-p", "plain question"], {
      cwd: sandbox.project,
      env: {
        HOME: sandbox.home,
        ANTHROPIC_API_KEY: "sk-ant-test",
        ANTHROPIC_BASE_URL: fake.anthropicBaseURL,
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("a plain answer");
    expect(fake.requests.some((r) => r.path === "/v1/messages")).toBe(true);
  });

  it("the config's models carry their prices and extra headers; -m names one", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        autoTitle: false,
        providers: {
          gateway: {
            api: "openai-chat",
            baseURL: fake.openaiBaseURL,
            apiKey: "gw-key",
            headers: { "x-team": "arbor" },
            models: [
              { id: "small", contextWindow: 32000, pricing: { input: 1000, output: 1000 } },
              { id: "large", contextWindow: 200000, pricing: { input: 0, output: 0 } },
            ],
          },
        },
      }),
    );
    const result = await runArbor(
      ["-m", "gateway/small", "-p", "--output-format", "json", "plain question"],
      { cwd: sandbox.project, env: bareEnv() },
    );
    expect(result.code).toBe(0);
    expect(lastChatModel()).toBe("small");
    const chat = fake.requests.filter((r) => r.path === "/v1/chat/completions").at(-1);
    expect(chat?.headers["x-team"]).toBe("arbor");
    // 1000 dollars per million tokens: any use at all costs something.
    expect(JSON.parse(result.stdout).cost).toBeGreaterThan(0);
  });

  it("/model lists the configured models with their details and switches to one", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        autoTitle: false,
        defaultProvider: "gateway",
        providers: {
          gateway: {
            api: "openai-chat",
            baseURL: fake.openaiBaseURL,
            apiKey: "gw-key",
            models: [
              { id: "small", contextWindow: 32000, pricing: { input: 0.15, output: 0.6 } },
              { id: "large", contextWindow: 200000 },
            ],
          },
          ollama: { api: "openai-chat", baseURL: localURL, model: "llama3.2" },
        },
      }),
    );
    const terminal = TmuxTerminal.start({ cwd: sandbox.project, env: bareEnv() });
    terminals.push(terminal);
    await terminal.waitFor("/help for commands", 20_000);
    terminal.type("/model");
    terminal.press("Enter");
    const screen = await terminal.waitFor("ollama/llama3.2");
    expect(screen).toMatch(
      /▶ gateway\/small\s+\(32k context, \$0.15\/\$0.6 per M tokens in\/out\)/,
    );
    expect(screen).toContain("gateway/large  (200k context)");
    terminal.type("/model gateway/large");
    terminal.press("Enter");
    // The label names the adapter's API provider; the footer shows the configured window.
    const switched = await terminal.waitFor("Model: openai/large");
    expect(switched).toContain("ctx 0/200k");
    terminal.type("plain question");
    terminal.press("Enter");
    await terminal.waitFor("a plain answer", 20_000);
    expect(lastChatModel()).toBe("large");
  });
});

describe("footer totals", () => {
  it("token and cost totals survive a resume", async () => {
    await sandbox.writeConfig(
      JSON.stringify({
        autoTitle: false,
        providers: {
          gateway: {
            api: "openai-chat",
            baseURL: fake.openaiBaseURL,
            apiKey: "gw-key",
            models: [{ id: "small", pricing: { input: 1000, output: 1000 } }],
          },
        },
      }),
    );
    const first = await runArbor(["-p", "--output-format", "json", "plain question"], {
      cwd: sandbox.project,
      env: bareEnv(),
    });
    const { usage, cost } = JSON.parse(first.stdout) as {
      usage: { input: number; output: number };
      cost: number;
    };
    expect(cost).toBeGreaterThan(0);
    const terminal = TmuxTerminal.start({ cwd: sandbox.project, env: bareEnv(), args: ["-c"] });
    terminals.push(terminal);
    const screen = await terminal.waitFor("Resumed", 20_000);
    // Nothing sent in this app run yet: the footer shows what the session used before.
    expect(screen).toContain(`↑${usage.input} ↓${usage.output}`);
    expect(screen).toContain(`$${cost.toFixed(4)}`);
  });
});
