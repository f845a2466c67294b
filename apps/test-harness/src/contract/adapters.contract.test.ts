import { createAnthropicMessagesModel } from "@arbor/providers/anthropic";
import { createOpenAIChatModel } from "@arbor/providers/openai";
import { describeAdapterContract } from "./adapter.contract.js";

describeAdapterContract({
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
});

describeAdapterContract({
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
});
