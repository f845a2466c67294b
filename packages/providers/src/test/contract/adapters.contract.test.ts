import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicMessagesModel } from "../../anthropic/index.js";
import { createGeminiModel } from "../../google/index.js";
import {
  createAzureOpenAIModel,
  createOpenAIChatModel,
  createOpenAIResponsesModel,
} from "../../openai/index.js";
import { describeAdapterContract } from "./adapter-contract.js";

const vitest = { describe, it, expect, beforeEach, afterEach };

describeAdapterContract(
  {
    name: "OpenAI Chat Completions",
    modelId: "gpt-4.1",
    thinkingSignatures: false,
    cacheWrite: false,
    create: (server, { idleTimeoutMs }) =>
      createOpenAIChatModel({
        model: "openai/gpt-4.1",
        apiKey: "test",
        baseURL: server.openaiBaseURL,
        idleTimeoutMs,
      }),
  },
  vitest,
);

describeAdapterContract(
  {
    name: "Anthropic Messages",
    modelId: "claude-haiku-4-5",
    thinkingSignatures: true,
    cacheWrite: true,
    create: (server, { idleTimeoutMs }) =>
      createAnthropicMessagesModel({
        model: "anthropic/claude-haiku-4-5",
        apiKey: "test",
        baseURL: server.anthropicBaseURL,
        idleTimeoutMs,
      }),
  },
  vitest,
);

describeAdapterContract(
  {
    name: "OpenAI Responses",
    modelId: "gpt-5",
    // The wire carries encrypted reasoning, which the adapter wraps with its item id.
    thinkingSignatures: false,
    cacheWrite: true,
    create: (server, { idleTimeoutMs }) =>
      createOpenAIResponsesModel({
        model: "gpt-5",
        apiKey: "test",
        baseURL: server.openaiBaseURL,
        idleTimeoutMs,
      }),
  },
  vitest,
);

describeAdapterContract(
  {
    name: "Google Gemini",
    modelId: "gemini-2.5-flash",
    thinkingSignatures: false,
    cacheWrite: false,
    wholeToolCalls: true,
    callOf: (request) => {
      const [, model, method] = /models\/([^:]+):(\w+)$/.exec(request.path) ?? [];
      return { model, stream: method === "streamGenerateContent" };
    },
    create: (server, { idleTimeoutMs }) =>
      createGeminiModel({
        model: "gemini-2.5-flash",
        apiKey: "test",
        baseURL: server.geminiBaseURL,
        idleTimeoutMs,
      }),
  },
  vitest,
);

for (const wire of ["chat", "responses"] as const) {
  describeAdapterContract(
    {
      name: `Azure OpenAI (${wire})`,
      modelId: "my-gpt-5-mini",
      thinkingSignatures: false,
      cacheWrite: wire === "responses",
      create: (server, { idleTimeoutMs }) =>
        createAzureOpenAIModel({
          endpoint: server.azureEndpoint,
          deployment: "my-gpt-5-mini",
          model: "openai/gpt-5-mini",
          wire,
          apiKey: "azure-test-key",
          idleTimeoutMs,
        }),
    },
    vitest,
  );
}
