import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectStream } from "../spec/collect.js";
import { type ModelMessage, modelMessageSchema } from "../spec/request.js";
import { FakeProviderServer } from "../test/fake-server/fake-provider-server.js";
import { createGeminiModel } from "./gemini-model.js";

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

const model = () =>
  createGeminiModel({
    model: "google/gemini-2.5-flash",
    apiKey: "AIza-test",
    baseURL: server.geminiBaseURL,
  });
const body = (index: number) => server.requests[index]?.body as Record<string, unknown>;

const REASON_AND_CALL = {
  blocks: [
    { type: "thinking" as const, thinking: "Two files.", signature: "c2lnLTE=" },
    { type: "toolCall" as const, id: "call_a", name: "read_file", arguments: { path: "a.ts" } },
    { type: "toolCall" as const, id: "call_b", name: "read_file", arguments: { path: "b.ts" } },
  ],
  chunkSize: 3,
};

const results = (ids: readonly string[]): ModelMessage[] =>
  ids.map((id) => ({
    role: "toolResult",
    toolCallId: id,
    toolName: "read_file",
    content: [{ type: "text", text: `contents of ${id}` }],
  }));

describe("Gemini requests", () => {
  it("sends the system prompt, tools, sampling and thinking as the API names them", async () => {
    server.script("ok");
    await collectStream(
      model().stream({
        system: "Be terse.",
        messages: [{ role: "user", content: "Hi" }],
        tools,
        temperature: 0.2,
        topK: 40,
        stop: ["END"],
        maxOutputTokens: 500,
        reasoning: "low",
      }),
    );
    expect(server.requests[0]?.path).toBe("/v1/models/gemini-2.5-flash:streamGenerateContent");
    expect(body(0)).toMatchObject({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }],
      systemInstruction: { parts: [{ text: "Be terse." }] },
      tools: [
        {
          functionDeclarations: [
            {
              name: "read_file",
              description: "Reads a file",
              parametersJsonSchema: tools[0]?.parameters,
            },
          ],
        },
      ],
      generationConfig: {
        temperature: 0.2,
        topK: 40,
        stopSequences: ["END"],
        maxOutputTokens: 500,
        thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
      },
    });
    expect(server.requests[0]?.headers["x-goog-api-key"]).toBe("AIza-test");
  });
});

describe("thought signatures across turns", () => {
  it("go back on the function call they came before, across a tool call", async () => {
    server.script(REASON_AND_CALL, "Both read.");
    const messages: ModelMessage[] = [{ role: "user", content: "Read a and b" }];
    const first = await collectStream(model().stream({ messages, tools }));
    expect(first.stopReason).toBe("tool_use");
    messages.push(first.message, ...results(["call_a", "call_b"]));
    const second = await collectStream(model().stream({ messages, tools }));
    expect(second.text).toBe("Both read.");
    expect(body(1).contents).toEqual([
      { role: "user", parts: [{ text: "Read a and b" }] },
      {
        role: "model",
        parts: [
          {
            functionCall: { id: "call_a", name: "read_file", args: { path: "a.ts" } },
            thoughtSignature: "c2lnLTE=",
          },
          { functionCall: { id: "call_b", name: "read_file", args: { path: "b.ts" } } },
        ],
      },
      {
        role: "user",
        parts: [
          {
            functionResponse: {
              id: "call_a",
              name: "read_file",
              response: { output: "contents of call_a" },
            },
          },
          {
            functionResponse: {
              id: "call_b",
              name: "read_file",
              response: { output: "contents of call_b" },
            },
          },
        ],
      },
    ]);
  });

  it("go back the same from a session reopened from disk", async () => {
    server.script(REASON_AND_CALL, "Both read.", "Both read.");
    const messages: ModelMessage[] = [{ role: "user", content: "Read a and b" }];
    const first = await collectStream(model().stream({ messages, tools }));
    messages.push(first.message, ...results(["call_a", "call_b"]));
    await collectStream(model().stream({ messages, tools }));
    const dir = await mkdtemp(join(tmpdir(), "arbor-gemini-"));
    try {
      const file = join(dir, "session.json");
      await writeFile(file, JSON.stringify(messages));
      const reopened = (JSON.parse(await readFile(file, "utf8")) as unknown[]).map((message) =>
        modelMessageSchema.parse(message),
      );
      await collectStream(model().stream({ messages: reopened, tools }));
      expect(body(2).contents).toEqual(body(1).contents);
      expect(JSON.stringify(body(2).contents)).toContain('"thoughtSignature":"c2lnLTE="');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("Gemini failures in the stream", () => {
  it("keeps a mid-stream 429's RetryInfo delay", async () => {
    server.script({
      blocks: [{ type: "text", text: "partial" }],
      chunkSize: 2,
      error: { kind: "rate_limit", afterDeltas: 2, retryAfterMs: 7000 },
    });
    const result = await collectStream(
      model().stream({ messages: [{ role: "user", content: "?" }] }),
    );
    expect(result.error).toMatchObject({ kind: "rate_limit", retryAfterMs: 7000 });
  });
});
