import { collectStream } from "@arbor/providers";
import { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InvalidHostOptionsError } from "../errors/index.js";
import type { ModelProviders } from "./provider-settings.js";
import { createModelForTarget } from "./resolve-model-targets.js";

let server: FakeProviderServer;
beforeAll(async () => {
  server = await FakeProviderServer.start();
});
afterAll(async () => {
  await server.close();
});

const ask = { messages: [{ role: "user" as const, content: "hi" }] };

describe("the Responses, Gemini and Azure OpenAI provider apis", () => {
  it("builds each through its real adapter and reaches its wire", async () => {
    server.script("from responses", "from gemini", "from azure", "from azure chat");
    const providers: ModelProviders = {
      providers: {
        oai: { api: "openai-responses", apiKey: "sk-1", baseURL: server.openaiBaseURL },
        gem: { api: "google-gemini", apiKey: "AIza-1", baseURL: server.geminiBaseURL },
        az: {
          api: "azure-openai",
          apiKey: "az-1",
          baseURL: server.azureEndpoint,
          model: "my-deployment",
        },
        azchat: {
          api: "azure-openai",
          wire: "chat",
          apiVersion: "2024-10-21",
          apiKey: "az-2",
          baseURL: server.azureEndpoint,
          model: "chat-deployment",
        },
      },
    };
    const texts: string[] = [];
    for (const provider of ["oai", "gem", "az", "azchat"]) {
      const model = createModelForTarget({ provider }, providers);
      texts.push((await collectStream(model.stream(ask))).text);
    }
    expect(texts).toEqual(["from responses", "from gemini", "from azure", "from azure chat"]);
    expect(server.requests.map((request) => [request.api, request.path])).toEqual([
      ["openai-responses", "/v1/responses"],
      ["google-gemini", "/v1/models/gemini-2.5-flash:streamGenerateContent"],
      ["openai-responses", "/openai/responses"],
      ["openai", "/openai/deployments/chat-deployment/chat/completions"],
    ]);
    expect(server.requests[0]?.body).toMatchObject({ model: "gpt-5-mini", store: false });
    expect(server.requests[3]?.query).toBe("api-version=2024-10-21");
  });

  it("builds an openai-chat provider with a preset, a local one without a key", async () => {
    server.script("from vllm");
    const model = createModelForTarget(
      { provider: "v" },
      {
        providers: {
          v: { api: "openai-chat", preset: "vllm", baseURL: server.openaiBaseURL, model: "qwen" },
        },
      },
    );
    const result = await collectStream(model.stream({ ...ask, topK: 5, maxOutputTokens: 9 }));
    expect(result.text).toBe("from vllm");
    expect(server.requests.at(-1)?.body).toMatchObject({ model: "qwen", top_k: 5, max_tokens: 9 });
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer not-needed");
  });

  it.each([
    [{ api: "openai-chat", apiKey: "k", preset: "grok" }, "providers.x.preset", /groq/],
    [
      { api: "google-gemini", apiKey: "k", preset: "groq" },
      "providers.x.preset",
      /only "openai-chat"/,
    ],
    [{ api: "azure-openai", apiKey: "k", model: "d" }, "providers.x.baseURL", /resource endpoint/],
    [
      { api: "azure-openai", apiKey: "k", baseURL: "https://r.openai.azure.com" },
      "providers.x.model",
      /deployment/,
    ],
    [{ api: "openai-chat", apiKey: "k", wire: "chat" }, "providers.x.wire", /only "azure-openai"/],
    [
      { api: "openai-responses", apiKey: "k", apiVersion: "v" },
      "providers.x.apiVersion",
      /only "azure-openai"/,
    ],
    [{ api: "openai-response", apiKey: "k" }, "providers.x.api", /openai-responses/],
  ])("names the field of %j", (settings, field, reason) => {
    let error: unknown;
    try {
      createModelForTarget({ provider: "x" }, { providers: { x: settings } } as ModelProviders);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidHostOptionsError.isInstance(error)).toBe(true);
    expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
    expect((error as Error).message).toMatch(reason);
  });
});
