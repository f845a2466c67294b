import { describe, expect, it } from "vitest";
import { arborConfigSchema } from "./config-schema.js";
import { resolveProvider } from "./resolve-provider.js";
import { askServerModel, isLocalServer } from "./server-model.js";

const config = (providers: unknown) => arborConfigSchema.parse({ providers });

describe("local providers", () => {
  it("an OpenAI-compatible server with a base URL and no key settings needs no key", () => {
    for (const baseURL of ["http://127.0.0.1:11434/v1", "http://localhost:8080/v1"]) {
      const resolved = resolveProvider(config({ ollama: { api: "openai-chat", baseURL } }), {}, {});
      expect(resolved.apiKey).toBe("not-needed");
      expect(resolved.askServerModel).toBe(true);
    }
  });

  it("a key setting that is empty is still an error; a cloud endpoint is never asked for its model", () => {
    expect(() =>
      resolveProvider(
        config({
          gw: { api: "openai-chat", baseURL: "http://127.0.0.1:1/v1", apiKeyEnv: "GW_KEY" },
        }),
        {},
        {},
      ),
    ).toThrow(/the provider "gw" has no API key/);
    const cloud = resolveProvider(
      config({
        router: { api: "openai-chat", baseURL: "https://openrouter.ai/api/v1", apiKey: "k" },
      }),
      {},
      {},
    );
    expect(cloud.askServerModel).toBeUndefined();
    const named = resolveProvider(
      config({
        ollama: { api: "openai-chat", baseURL: "http://127.0.0.1:1/v1", model: "llama3.2" },
      }),
      {},
      {},
    );
    expect(named.askServerModel).toBeUndefined();
    expect(named.model).toBe("llama3.2");
  });

  it("ANTHROPIC_BASE_URL is honoured; headers and the first listed model come from the config", () => {
    const anthropic = resolveProvider(
      config({}),
      { ANTHROPIC_API_KEY: "sk-ant", ANTHROPIC_BASE_URL: "http://127.0.0.1:9/anthropic" },
      {},
    );
    expect(anthropic.baseURL).toBe("http://127.0.0.1:9/anthropic");
    const listed = resolveProvider(
      config({
        gw: {
          api: "openai-chat",
          apiKey: "k",
          headers: { "x-team": "arbor" },
          models: [{ id: "small", contextWindow: 32000, pricing: { input: 1, output: 2 } }],
        },
      }),
      {},
      {},
    );
    expect(listed).toMatchObject({
      model: "small",
      headers: { "x-team": "arbor" },
      modelInfo: { contextWindow: 32000 },
    });
  });

  it("a models entry with a typo is an error naming the field", () => {
    const parsed = arborConfigSchema.safeParse({
      providers: { gw: { api: "openai-chat", models: [{ id: "m", contextWindw: 3 }] } },
    });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("contextWindw");
  });

  it("isLocalServer tells this machine and private networks from the cloud", () => {
    for (const url of [
      "http://127.0.0.1:11434/v1",
      "http://localhost:8080",
      "http://[::1]:8000/v1",
      "http://192.168.1.5:11434/v1",
      "http://10.0.0.2/v1",
      "http://172.20.0.3/v1",
      "http://box.local:1234/v1",
    ])
      expect(isLocalServer(url), url).toBe(true);
    for (const url of [
      "https://api.openai.com/v1",
      "http://172.32.0.1/v1",
      "not a url",
      "http://8.8.8.8",
    ])
      expect(isLocalServer(url), url).toBe(false);
  });

  it("askServerModel takes the first listed model and keeps the default on any failure", async () => {
    const answer = (status: number, body: unknown) =>
      (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;
    expect(
      await askServerModel("http://x/v1/", "k", {}, answer(200, { data: [{ id: "qwen" }] })),
    ).toBe("qwen");
    expect(await askServerModel("http://x/v1", "k", {}, answer(404, {}))).toBeUndefined();
    expect(await askServerModel("http://x/v1", "k", {}, answer(200, { data: [] }))).toBeUndefined();
    expect(await askServerModel("http://x/v1", "k", {}, answer(200, { nope: 1 }))).toBeUndefined();
    const failing = (async () => {
      throw new Error("ECONNREFUSED");
    }) as unknown as typeof fetch;
    expect(await askServerModel("http://x/v1", "k", {}, failing)).toBeUndefined();
  });
});
