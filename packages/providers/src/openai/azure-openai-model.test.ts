import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ModelConfigError } from "../errors.js";
import { collectStream } from "../spec/collect.js";
import { FakeProviderServer } from "../test/fake-server/fake-provider-server.js";
import { AZURE_OPENAI_DEFAULT_API_VERSION, createAzureOpenAIModel } from "./azure-openai-model.js";

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

const ask = { messages: [{ role: "user" as const, content: "Hi" }] };

describe("Azure OpenAI", () => {
  it("sends Responses calls to /openai/responses with the deployment as the model and the api-key header", async () => {
    server.script("Hello from Azure");
    const model = createAzureOpenAIModel({
      endpoint: `${server.azureEndpoint}/`,
      deployment: "prod-gpt5",
      model: "openai/gpt-5",
      apiKey: "azure-key-1",
    });
    const result = await collectStream(model.stream(ask));
    expect(result.text).toBe("Hello from Azure");
    const request = server.requests[0];
    expect(request?.path).toBe("/openai/responses");
    expect(request?.query).toBe(`api-version=${AZURE_OPENAI_DEFAULT_API_VERSION}`);
    expect(request?.headers["api-key"]).toBe("azure-key-1");
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.body).toMatchObject({ model: "prod-gpt5", store: false });
    // Limits and prices come from the catalogue entry named by `model`.
    expect(model.info).toMatchObject({
      id: "prod-gpt5",
      api: "azure-openai",
      contextWindow: 400_000,
    });
  });

  it("sends Chat Completions to the deployment's path with an Entra token", async () => {
    server.script("chat answer");
    const model = createAzureOpenAIModel({
      endpoint: server.azureEndpoint,
      deployment: "prod-4o",
      wire: "chat",
      apiVersion: "2024-10-21",
      entraToken: async () => "entra-token-xyz",
    });
    const result = await collectStream(model.stream(ask));
    expect(result.text).toBe("chat answer");
    const request = server.requests[0];
    expect(request?.path).toBe("/openai/deployments/prod-4o/chat/completions");
    expect(request?.query).toBe("api-version=2024-10-21");
    expect(request?.headers.authorization).toBe("Bearer entra-token-xyz");
    expect(request?.headers["api-key"]).toBeUndefined();
  });

  it("reads no credentials from the environment", async () => {
    const saved = process.env.AZURE_OPENAI_API_KEY;
    process.env.AZURE_OPENAI_API_KEY = "from-the-environment";
    try {
      server.script("ok");
      const model = createAzureOpenAIModel({
        endpoint: server.azureEndpoint,
        deployment: "d",
        entraToken: async () => "token",
      });
      await collectStream(model.stream(ask));
      expect(JSON.stringify(server.requests[0]?.headers)).not.toContain("from-the-environment");
    } finally {
      if (saved === undefined) delete process.env.AZURE_OPENAI_API_KEY;
      else process.env.AZURE_OPENAI_API_KEY = saved;
    }
  });

  it.each([
    [{ endpoint: "", deployment: "d", apiKey: "k" }, /needs an endpoint/],
    [{ endpoint: "https://r.openai.azure.com", deployment: "", apiKey: "k" }, /deployment/],
    [
      { endpoint: "https://r.openai.azure.com", deployment: "d" },
      /exactly one of apiKey and entraToken/,
    ],
  ])("refuses a configuration missing a field (%#)", (options, message) => {
    expect(() => createAzureOpenAIModel(options)).toThrow(ModelConfigError);
    expect(() => createAzureOpenAIModel(options)).toThrow(message);
  });
});
