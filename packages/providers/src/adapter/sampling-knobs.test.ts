import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicMessagesModel } from "../anthropic/anthropic-messages-model.js";
import { createOpenAIChatModel, type OpenAIChatModelOptions } from "../openai/openai-chat-model.js";
import { collectStream } from "../spec/collect.js";
import type { Model } from "../spec/model.js";
import { type ModelRequest, modelRequestSchema } from "../spec/request.js";
import { FakeProviderServer } from "../test/fake-server/fake-provider-server.js";

// Through the real SDKs against the fake servers: the sampling knobs of a request, as the
// wire body each provider gets.
let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const knobs = {
  temperature: 0.4,
  topP: 0.9,
  topK: 40,
  frequencyPenalty: 0.5,
  presencePenalty: -0.25,
  seed: 1234,
  stop: ["\nUser:", "END"],
} satisfies Partial<ModelRequest>;

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

async function body(make: (server: FakeProviderServer) => Model, request: ModelRequest) {
  server ??= await FakeProviderServer.start();
  server.script("ok");
  const collected = await collectStream(make(server).stream(request));
  expect(collected.error).toBeUndefined();
  return server.requests.at(-1)?.body as Record<string, unknown>;
}

const openai =
  (options: Partial<OpenAIChatModelOptions> = {}) =>
  (fake: FakeProviderServer) =>
    createOpenAIChatModel({
      model: "openai/gpt-4.1",
      apiKey: "k",
      baseURL: fake.openaiBaseURL,
      ...options,
    });
const anthropic = (fake: FakeProviderServer) =>
  createAnthropicMessagesModel({
    model: "anthropic/claude-haiku-4-5",
    apiKey: "k",
    baseURL: fake.anthropicBaseURL,
  });

const SAMPLING_FIELDS = [
  "temperature",
  "top_p",
  "top_k",
  "frequency_penalty",
  "presence_penalty",
  "seed",
  "stop",
  "stop_sequences",
];
const sampling = (wire: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(wire).filter(([key]) => SAMPLING_FIELDS.includes(key)));

describe("sampling knobs on the wire", () => {
  it("reach an OpenAI-compatible server's body, top_k included", async () => {
    expect(sampling(await body(openai(), ask(knobs)))).toEqual({
      temperature: 0.4,
      top_p: 0.9,
      top_k: 40,
      frequency_penalty: 0.5,
      presence_penalty: -0.25,
      seed: 1234,
      stop: ["\nUser:", "END"],
    });
  });

  it("keep top_k from a server told not to take it, and from OpenAI itself", async () => {
    const noTopK = sampling(await body(openai({ sendTopK: false }), ask(knobs)));
    expect(noTopK).not.toHaveProperty("top_k");
    expect(noTopK).toMatchObject({ top_p: 0.9, seed: 1234 });
    const bodies: Array<Record<string, unknown>> = [];
    const official = createOpenAIChatModel({
      model: "openai/gpt-4.1",
      apiKey: "k",
      fetch: async (_url, init) => {
        bodies.push(JSON.parse(String(init?.body)));
        return new Response("data: [DONE]\n\n", {
          headers: { "content-type": "text/event-stream" },
        });
      },
    });
    await collectStream(official.stream(ask(knobs)));
    expect(bodies[0]).not.toHaveProperty("top_k");
    expect(bodies[0]).toMatchObject({
      top_p: 0.9,
      frequency_penalty: 0.5,
      stop: ["\nUser:", "END"],
    });
  });

  it("send nothing a request does not set, and zero values as zero", async () => {
    expect(sampling(await body(openai(), ask()))).toEqual({});
    expect(sampling(await body(anthropic, ask()))).toEqual({});
    const zeros = { topP: 0, frequencyPenalty: 0, presencePenalty: 0, seed: 0, temperature: 0 };
    expect(sampling(await body(openai(), ask(zeros)))).toEqual({
      temperature: 0,
      top_p: 0,
      frequency_penalty: 0,
      presence_penalty: 0,
      seed: 0,
    });
  });

  it("give Anthropic its stop_sequences and nothing its API lacks", async () => {
    expect(sampling(await body(anthropic, ask(knobs)))).toEqual({
      stop_sequences: ["\nUser:", "END"],
    });
  });

  it.each([
    { topP: 1.5 },
    { topP: -0.1 },
    { topK: 0 },
    { topK: 2.5 },
    { frequencyPenalty: 3 },
    { presencePenalty: -2.5 },
    { seed: 1.5 },
    { seed: 2 ** 60 },
    { stop: [] },
    { stop: [""] },
    { stop: Array.from({ length: 17 }, (_, i) => `s${i}`) },
  ])("are out of range in the request schema: %j", (bad) => {
    expect(modelRequestSchema.safeParse(ask(bad as Partial<ModelRequest>)).success).toBe(false);
  });
});
