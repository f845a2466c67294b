import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeResponsesReasoning } from "../adapter/responses-reasoning.js";
import { toAnthropicRequest } from "../anthropic/anthropic-request.js";
import { findModelInfo } from "../spec/catalogue.js";
import { collectStream } from "../spec/collect.js";
import { type ModelMessage, type ModelRequest, modelMessageSchema } from "../spec/request.js";
import { FakeProviderServer } from "../test/fake-server/fake-provider-server.js";
import { createOpenAIResponsesModel } from "./openai-responses-model.js";

const tools = [
  {
    name: "read_file",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  },
];

let server: FakeProviderServer;
beforeEach(async () => {
  server = await FakeProviderServer.start();
});
afterEach(async () => {
  await server.close();
});

const model = (extra: { previousResponseId?: boolean } = {}) =>
  createOpenAIResponsesModel({
    model: "openai/gpt-5",
    apiKey: "sk-test",
    baseURL: server.openaiBaseURL,
    ...extra,
  });

const body = (index: number) => server.requests[index]?.body as Record<string, unknown>;

/** A first turn: reasoning with encrypted content, then two parallel tool calls. */
const REASON_AND_CALL = {
  blocks: [
    { type: "thinking" as const, thinking: "Two files to read.", signature: "gAAAA-enc-1" },
    { type: "toolCall" as const, id: "call_a", name: "read_file", arguments: { path: "a.ts" } },
    { type: "toolCall" as const, id: "call_b", name: "read_file", arguments: { path: "b.ts" } },
  ],
  chunkSize: 4,
  usage: { input: 100, output: 60, cacheRead: 0, cacheWrite: 0, reasoning: 40 },
};

const results = (ids: readonly string[]): ModelMessage[] =>
  ids.map((id) => ({
    role: "toolResult",
    toolCallId: id,
    toolName: "read_file",
    content: [{ type: "text", text: `contents of ${id}` }],
  }));

describe("OpenAI Responses requests", () => {
  it("asks for a stateless streamed response with encrypted reasoning", async () => {
    server.script("ok");
    await collectStream(
      model().stream({
        system: "Be terse.",
        messages: [{ role: "user", content: "Hi" }],
        tools,
        maxOutputTokens: 300,
        reasoning: "high",
        cache: { key: "session-1" },
      }),
    );
    expect(server.requests[0]?.path).toBe("/v1/responses");
    expect(body(0)).toEqual({
      model: "gpt-5",
      instructions: "Be terse.",
      input: [{ role: "user", content: "Hi" }],
      stream: true,
      store: false,
      include: ["reasoning.encrypted_content"],
      tools: [
        {
          type: "function",
          name: "read_file",
          description: "Reads a file",
          parameters: tools[0]?.parameters,
          strict: false,
        },
      ],
      max_output_tokens: 300,
      reasoning: { effort: "high", summary: "auto" },
    });
  });

  it("does not ask models without reasoning for encrypted content", async () => {
    server.script("ok");
    const plain = createOpenAIResponsesModel({
      model: "openai/gpt-4.1",
      apiKey: "sk-test",
      baseURL: server.openaiBaseURL,
    });
    await collectStream(plain.stream({ messages: [{ role: "user", content: "Hi" }] }));
    expect(body(0).include).toBeUndefined();
    expect(body(0).reasoning).toBeUndefined();
  });
});

describe("OpenAI Responses stream", () => {
  it("reports reasoning tokens in usage", async () => {
    server.script(REASON_AND_CALL);
    const result = await collectStream(
      model().stream({ messages: [{ role: "user", content: "Read a and b" }], tools }),
    );
    expect(result.usage).toEqual({
      input: 100,
      output: 60,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 40,
    });
    expect(result.stopReason).toBe("tool_use");
  });

  it("shows a refusal as text with the refusal stop reason", async () => {
    server.script({
      blocks: [{ type: "text", text: "I can't help with that." }],
      stopReason: "refusal",
    });
    const result = await collectStream(
      model().stream({ messages: [{ role: "user", content: "?" }] }),
    );
    expect(result.text).toBe("I can't help with that.");
    expect(result.stopReason).toBe("refusal");
    expect(JSON.stringify(result.events)).not.toContain("error");
  });

  it("maps response.incomplete for content_filter to the content_filter stop reason", async () => {
    server.script({ blocks: [{ type: "text", text: "Partly" }], stopReason: "content_filter" });
    const result = await collectStream(
      model().stream({ messages: [{ role: "user", content: "?" }] }),
    );
    expect(result.stopReason).toBe("content_filter");
  });
});

describe("encrypted reasoning across turns", () => {
  it("sends reasoning back with its encrypted content across a tool call", async () => {
    server.script(REASON_AND_CALL, "Both read.");
    const messages: ModelMessage[] = [{ role: "user", content: "Read a and b" }];
    const first = await collectStream(model().stream({ messages, tools }));
    const thinking = first.message.content[0];
    expect(thinking?.type).toBe("thinking");
    const ref = decodeResponsesReasoning((thinking as { signature?: string }).signature);
    expect(ref).toEqual({ id: "rs_fake_0", encryptedContent: "gAAAA-enc-1" });

    messages.push(first.message, ...results(["call_a", "call_b"]));
    const second = await collectStream(model().stream({ messages, tools }));
    expect(second.text).toBe("Both read.");
    expect(body(1).input).toEqual([
      { role: "user", content: "Read a and b" },
      {
        type: "reasoning",
        id: "rs_fake_0",
        summary: [{ type: "summary_text", text: "Two files to read." }],
        encrypted_content: "gAAAA-enc-1",
      },
      { type: "function_call", call_id: "call_a", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call", call_id: "call_b", name: "read_file", arguments: '{"path":"b.ts"}' },
      { type: "function_call_output", call_id: "call_a", output: "contents of call_a" },
      { type: "function_call_output", call_id: "call_b", output: "contents of call_b" },
    ]);
  });

  it("sends the same reasoning back from a session reopened from disk", async () => {
    server.script(REASON_AND_CALL, "Both read.", "Both read.");
    const messages: ModelMessage[] = [{ role: "user", content: "Read a and b" }];
    const first = await collectStream(model().stream({ messages, tools }));
    messages.push(first.message, ...results(["call_a", "call_b"]));
    await collectStream(model().stream({ messages, tools }));

    const dir = await mkdtemp(join(tmpdir(), "arbor-responses-"));
    try {
      const file = join(dir, "session.json");
      await writeFile(file, JSON.stringify(messages));
      // A new process: the messages as the store gives them back, checked by the spec's schema.
      const reopened = (JSON.parse(await readFile(file, "utf8")) as unknown[]).map((message) =>
        modelMessageSchema.parse(message),
      );
      const fresh = model();
      await collectStream(fresh.stream({ messages: reopened, tools }));
      expect(body(2).input).toEqual(body(1).input);
      expect(JSON.stringify(body(2).input)).toContain('"encrypted_content":"gAAAA-enc-1"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("leaves Responses reasoning out of an Anthropic request", () => {
    const signature = '{"type":"reasoning","id":"rs_1","encrypted_content":"gAAAA"}';
    const request: ModelRequest = {
      messages: [
        { role: "user", content: "Hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hm", signature },
            { type: "text", text: "Hello" },
          ],
        },
        { role: "user", content: "And?" },
      ],
    };
    const info = findModelInfo("anthropic/claude-haiku-4-5");
    if (!info) throw new Error("catalogue lacks claude-haiku-4-5");
    const params = toAnthropicRequest(info, request);
    expect(JSON.stringify(params.messages)).not.toContain("gAAAA");
    expect(params.messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Hello" }],
    });
  });
});

describe("previous_response_id chaining", () => {
  it("stores responses and sends only the new messages after the first call", async () => {
    server.script(REASON_AND_CALL, "Both read.");
    const chained = model({ previousResponseId: true });
    const cache = { key: "session-9" };
    const messages: ModelMessage[] = [{ role: "user", content: "Read a and b" }];
    const first = await collectStream(chained.stream({ messages, tools, cache }));
    messages.push(first.message, ...results(["call_a", "call_b"]));
    await collectStream(chained.stream({ messages, tools, cache }));
    expect(body(0)).toMatchObject({ store: true });
    expect(body(0).previous_response_id).toBeUndefined();
    expect(body(0).include).toBeUndefined();
    expect(body(1)).toMatchObject({ store: true, previous_response_id: "resp_fake" });
    expect(body(1).input).toEqual([
      { type: "function_call_output", call_id: "call_a", output: "contents of call_a" },
      { type: "function_call_output", call_id: "call_b", output: "contents of call_b" },
    ]);
  });

  it("sends the whole conversation for another session key or an edited history", async () => {
    server.script("one", "two", "three");
    const chained = model({ previousResponseId: true });
    const messages: ModelMessage[] = [{ role: "user", content: "Hi" }];
    const first = await collectStream(chained.stream({ messages, cache: { key: "a" } }));
    const next: ModelMessage[] = [...messages, first.message, { role: "user", content: "More" }];
    await collectStream(chained.stream({ messages: next, cache: { key: "b" } }));
    expect(body(1).previous_response_id).toBeUndefined();
    expect(body(1).input).toHaveLength(3);
    // The conversation was cut back to before the stored answer: nothing to chain to.
    await collectStream(chained.stream({ messages, cache: { key: "a" } }));
    expect(body(2).previous_response_id).toBeUndefined();
  });

  it("starts afresh on another branch of the same length", async () => {
    server.script("one", "two");
    const chained = model({ previousResponseId: true });
    const cache = { key: "s" };
    const first = await collectStream(
      chained.stream({ messages: [{ role: "user", content: "Hi" }], cache }),
    );
    const branch: ModelMessage[] = [
      { role: "user", content: "Hello instead" },
      first.message,
      { role: "user", content: "More" },
    ];
    await collectStream(chained.stream({ messages: branch, cache }));
    expect(body(1).previous_response_id).toBeUndefined();
    expect(body(1).input).toHaveLength(3);
  });
});
