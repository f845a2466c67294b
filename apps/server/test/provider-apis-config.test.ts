import { describe, expect, it } from "vitest";
import { parseServerConfigText } from "../src/config/load-server-config.js";

describe("the server config's provider apis", () => {
  it("takes the Responses, Gemini and Azure OpenAI apis with Azure's wire and api-version", () => {
    const config = parseServerConfigText(
      [
        "providers:",
        "  oai: { api: openai-responses, apiKeyEnv: OPENAI_API_KEY }",
        "  gem: { api: google-gemini, apiKeyEnv: GEMINI_API_KEY }",
        "  groq: { api: openai-chat, preset: groq, apiKeyEnv: GROQ_API_KEY }",
        "  az:",
        "    api: azure-openai",
        "    wire: chat",
        "    apiVersion: 2024-10-21",
        "    baseURL: https://my-resource.openai.azure.com",
        "    model: my-deployment",
        "    apiKeyEnv: AZURE_OPENAI_API_KEY",
      ].join("\n"),
      "server.yaml",
    );
    expect(Object.values(config.providers).map((provider) => provider.api)).toEqual([
      "openai-responses",
      "google-gemini",
      "openai-chat",
      "azure-openai",
    ]);
    expect(config.providers.groq).toMatchObject({ preset: "groq" });
    expect(config.providers.az).toMatchObject({ wire: "chat", apiVersion: "2024-10-21" });
  });

  it("names a misspelt api with its field", () => {
    expect(() =>
      parseServerConfigText("providers:\n  x: { api: google-gemeni }\n", "server.yaml"),
    ).toThrow(/providers\.x\.api/);
  });
});
