import { describe, expect, it } from "vitest";
import { toAnthropicRequest } from "../anthropic/anthropic-request.js";
import { toOpenAIRequest } from "../openai/openai-request.js";
import { findModelInfo } from "../spec/catalogue.js";
import type { ModelRequest } from "../spec/request.js";

const conversation: ModelRequest = {
  system: "Be brief.",
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "What is in a.png?" },
        { type: "image", data: "QUJD", mimeType: "image/png" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Need the file.", signature: "sig" },
        { type: "text", text: "Looking." },
        { type: "toolCall", id: "c1", name: "read_file", arguments: { path: "a.png" } },
        { type: "toolCall", id: "c2", name: "stat", arguments: { path: "a.png" } },
      ],
    },
    {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read_file",
      content: [{ type: "text", text: "bytes" }],
    },
    {
      role: "toolResult",
      toolCallId: "c2",
      toolName: "stat",
      content: [{ type: "text", text: "3 B" }],
      isError: true,
    },
  ],
  tools: [
    { name: "read_file", description: "Reads", parameters: { type: "object", properties: {} } },
  ],
  temperature: 0.2,
  maxOutputTokens: 512,
  reasoning: "medium",
};

const info = (key: string) => {
  const found = findModelInfo(key);
  if (!found) throw new Error(`missing ${key}`);
  return found;
};

describe("toOpenAIRequest", () => {
  it("maps the conversation to Chat Completions messages", () => {
    const body = toOpenAIRequest(info("openai/o4-mini"), conversation, "max_completion_tokens");
    expect(body).toMatchObject({
      model: "o4-mini",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_completion_tokens: 512,
      reasoning_effort: "medium",
      tools: [{ type: "function", function: { name: "read_file", description: "Reads" } }],
    });
    expect(body.messages).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in a.png?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,QUJD" } },
        ],
      },
      {
        role: "assistant",
        content: "Looking.",
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "read_file", arguments: '{"path":"a.png"}' },
          },
          { id: "c2", type: "function", function: { name: "stat", arguments: '{"path":"a.png"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "bytes" },
      { role: "tool", tool_call_id: "c2", content: "3 B" },
    ]);
  });

  it("leaves reasoning out for models without it and honours max_tokens servers", () => {
    const body = toOpenAIRequest(info("openai/gpt-4.1"), conversation, "max_tokens");
    expect(body).not.toHaveProperty("reasoning_effort");
    expect(body).toMatchObject({ max_tokens: 512 });
  });
});

describe("toAnthropicRequest", () => {
  it("maps the conversation to Messages blocks and merges tool results", () => {
    const body = toAnthropicRequest(info("anthropic/claude-haiku-4-5"), conversation);
    expect(body).toMatchObject({
      model: "claude-haiku-4-5",
      system: "Be brief.",
      stream: true,
      thinking: { type: "enabled", budget_tokens: 8192 },
      max_tokens: 8192 + 1024,
      tools: [
        {
          name: "read_file",
          description: "Reads",
          input_schema: { type: "object", properties: {} },
        },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in a.png?" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: "QUJD" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Need the file.", signature: "sig" },
          { type: "text", text: "Looking." },
          { type: "tool_use", id: "c1", name: "read_file", input: { path: "a.png" } },
          { type: "tool_use", id: "c2", name: "stat", input: { path: "a.png" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "c1",
            content: [{ type: "text", text: "bytes" }],
            is_error: false,
          },
          {
            type: "tool_result",
            tool_use_id: "c2",
            content: [{ type: "text", text: "3 B" }],
            is_error: true,
          },
        ],
      },
    ]);
  });

  it("drops unsigned thinking and uses the catalogue's output limit by default", () => {
    const body = toAnthropicRequest(info("anthropic/claude-haiku-4-5"), {
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "from another model" },
            { type: "text", text: "yo" },
          ],
        },
      ],
    });
    expect(body.max_tokens).toBe(64_000);
    expect(body).not.toHaveProperty("thinking");
    expect(body.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "yo" }],
    });
  });
});
