import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelConfigError } from "../errors.js";
import type { ModelInfo } from "../spec/catalogue.js";
import { collectStream } from "../spec/collect.js";
import type { ModelRequest } from "../spec/request.js";
import { FakeProviderServer } from "../test/fake-server/fake-provider-server.js";
import { createOpenAIChatModel } from "./openai-chat-model.js";
import { OPENAI_COMPATIBLE_PRESETS, type OpenAICompatiblePresetName } from "./openai-presets.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

/** A model that reasons, so a reasoning level is sent at all. */
const reasoner = (id: string): ModelInfo => ({
  id,
  provider: "host",
  api: "openai-chat",
  contextWindow: 128_000,
  maxOutputTokens: 8_192,
  pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  capabilities: { tools: true, images: false, reasoning: true },
});

const EVERYTHING: ModelRequest = {
  messages: [{ role: "user", content: "Hi" }],
  temperature: 0.5,
  topK: 20,
  frequencyPenalty: 0.1,
  presencePenalty: 0.2,
  seed: 7,
  stop: ["END"],
  maxOutputTokens: 100,
  reasoning: "high",
  cache: { key: "s1" },
};

async function bodyFor(preset: OpenAICompatiblePresetName): Promise<Record<string, unknown>> {
  server.script("ok");
  const model = createOpenAIChatModel({
    model: reasoner("some-model"),
    apiKey: "k",
    baseURL: server.openaiBaseURL,
    preset,
  });
  const result = await collectStream(model.stream(EVERYTHING));
  expect(result.text).toBe("ok");
  return server.requests.at(-1)?.body as Record<string, unknown>;
}

describe("OpenAI-compatible presets", () => {
  it("OpenRouter takes reasoning as an object, max_tokens and top_k", async () => {
    const body = await bodyFor("openrouter");
    expect(body.reasoning).toEqual({ effort: "high" });
    expect(body.reasoning_effort).toBeUndefined();
    expect(body).toMatchObject({ max_tokens: 100, top_k: 20 });
    expect(body.prompt_cache_key).toBeUndefined();
  });

  it("Groq takes reasoning_effort and max_completion_tokens, and no top_k", async () => {
    const body = await bodyFor("groq");
    expect(body).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 100 });
    expect(body.top_k).toBeUndefined();
    expect(body.max_tokens).toBeUndefined();
  });

  it("xAI gets no penalties or stop sequences", async () => {
    const body = await bodyFor("xai");
    for (const field of ["presence_penalty", "frequency_penalty", "stop", "reasoning_effort"]) {
      expect(body[field], field).toBeUndefined();
    }
    expect(body).toMatchObject({ temperature: 0.5, max_tokens: 100, seed: 7 });
  });

  it("Mistral takes the seed as random_seed", async () => {
    const body = await bodyFor("mistral");
    expect(body.random_seed).toBe(7);
    expect(body.seed).toBeUndefined();
  });

  it("Cerebras gets no penalties", async () => {
    const body = await bodyFor("cerebras");
    expect(body.frequency_penalty).toBeUndefined();
    expect(body.presence_penalty).toBeUndefined();
    expect(body).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 100 });
  });

  it.each(["vllm", "llamacpp", "lmstudio"] as const)(
    "%s reads top_k and max_tokens",
    async (name) => {
      const body = await bodyFor(name);
      expect(body).toMatchObject({ top_k: 20, max_tokens: 100 });
      expect(body.reasoning_effort).toBeUndefined();
    },
  );

  it.each(
    Object.entries(OPENAI_COMPATIBLE_PRESETS).map(
      ([name, rules]) => [name, rules.baseURL] as const,
    ),
  )("%s goes to %s without a baseURL", async (name, baseURL) => {
    let url = "";
    const model = createOpenAIChatModel({
      model: "m",
      ...(OPENAI_COMPATIBLE_PRESETS[name as OpenAICompatiblePresetName].local
        ? {}
        : { apiKey: "k" }),
      preset: name as OpenAICompatiblePresetName,
      fetch: async (input) => {
        url = String(input instanceof Request ? input.url : input);
        return new Response('{"error":{"message":"stop here"}}', {
          status: 400,
          headers: { "content-type": "application/json" },
        });
      },
    });
    await collectStream(model.stream({ messages: [{ role: "user", content: "Hi" }] }));
    expect(url).toBe(`${baseURL}/chat/completions`);
  });

  it("refuses an unknown preset with its name", () => {
    expect(() =>
      createOpenAIChatModel({
        model: "m",
        apiKey: "k",
        preset: "grok" as OpenAICompatiblePresetName,
      }),
    ).toThrow(ModelConfigError);
    expect(() =>
      createOpenAIChatModel({
        model: "m",
        apiKey: "k",
        preset: "grok" as OpenAICompatiblePresetName,
      }),
    ).toThrow(/preset: there is no preset "grok"/);
  });
});
