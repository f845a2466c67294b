import { createAnthropicMessagesModel } from "@arbor/providers/anthropic";
import { createOpenAIChatModel } from "@arbor/providers/openai";
import { FakeProviderServer } from "@arbor/providers/test";
import { afterEach, describe, expect, it } from "vitest";
import { addTool, drain, memorySession, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import type { AgentSessionOptions } from "../agent-session-options.js";

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const knobs = {
  temperature: 0.3,
  topP: 0.8,
  topK: 20,
  frequencyPenalty: 0.1,
  presencePenalty: 0.2,
  seed: 7,
  stop: ["STOP"],
} satisfies Partial<AgentSessionOptions>;

const call = { type: "toolCall" as const, id: "c1", name: "add", arguments: { a: 1, b: 2 } };

/** Every `cache_control` marker in a wire body, by path. */
function markers(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => markers(item, `${path}[${i}]`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === "cache_control" ? [path] : markers(inner, `${path}.${key}`),
  );
}

async function runOver(
  kind: "openai" | "anthropic",
  options: Partial<AgentSessionOptions>,
): Promise<Array<Record<string, unknown>>> {
  server = await FakeProviderServer.start();
  server.script({ blocks: [call] }, "3");
  const model =
    kind === "openai"
      ? createOpenAIChatModel({
          model: "openai/gpt-4.1",
          apiKey: "k",
          baseURL: server.openaiBaseURL,
          promptCacheKey: true,
        })
      : createAnthropicMessagesModel({
          model: "anthropic/claude-haiku-4-5",
          apiKey: "k",
          baseURL: server.anthropicBaseURL,
        });
  const agent = new AgentSession({
    targets: [{ model }],
    session: await memorySession(),
    systemPrompt: "Be terse.",
    tools: [addTool],
    ...options,
  });
  const { result } = await drain(agent.prompt("1+2"));
  expect(result.success).toBe(true);
  return server.requests.map((request) => request.body as Record<string, unknown>);
}

describe("sampling knobs from the agent's options", () => {
  it("go with every request of the run, and only those given", async () => {
    const model = scripted("alpha", [{ blocks: [call] }, "3"]);
    const agent = new AgentSession({
      targets: [{ model }],
      session: await memorySession(),
      tools: [addTool],
      ...knobs,
    });
    await drain(agent.prompt("1+2"));
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) expect(request).toMatchObject(knobs);
    const plain = scripted("alpha", ["hi"]);
    await drain(
      new AgentSession({ targets: [{ model: plain }], session: await memorySession() }).prompt(
        "hi",
      ),
    );
    for (const key of Object.keys(knobs)) expect(plain.requests[0]).not.toHaveProperty(key);
  });

  it("reach an OpenAI-compatible server's request bodies", async () => {
    const bodies = await runOver("openai", knobs);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).toMatchObject({
        temperature: 0.3,
        top_p: 0.8,
        top_k: 20,
        frequency_penalty: 0.1,
        presence_penalty: 0.2,
        seed: 7,
        stop: ["STOP"],
      });
    }
  });

  it("reach Anthropic as stop_sequences, without what its API lacks", async () => {
    const bodies = await runOver("anthropic", knobs);
    for (const body of bodies) {
      expect(body.stop_sequences).toEqual(["STOP"]);
      for (const key of ["top_p", "top_k", "seed", "frequency_penalty", "temperature"]) {
        expect(body).not.toHaveProperty(key);
      }
    }
  });
});

describe("promptCache: false", () => {
  it("sends no cache hints to a model", async () => {
    const model = scripted("alpha", ["hi"]);
    await drain(
      new AgentSession({
        targets: [{ model }],
        session: await memorySession(),
        promptCache: false,
      }).prompt("hi"),
    );
    expect(model.requests[0]).not.toHaveProperty("cache");
  });

  it("leaves Anthropic bodies without cache_control, which they carry by default", async () => {
    const cached = await runOver("anthropic", {});
    expect(markers(cached[1]).length).toBeGreaterThan(0);
    await server?.close();
    const off = await runOver("anthropic", { promptCache: false });
    for (const body of off) expect(markers(body)).toEqual([]);
  });

  it("leaves OpenAI bodies without prompt_cache_key, which they carry by default", async () => {
    const cached = await runOver("openai", {});
    expect(cached[0]?.prompt_cache_key).toEqual(expect.any(String));
    await server?.close();
    const off = await runOver("openai", { promptCache: false });
    for (const body of off) expect(body).not.toHaveProperty("prompt_cache_key");
  });
});
