import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type HeadendServer, startHeadendServer } from "./headend-server.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let s: HeadendServer;
let client: OpenAI;

interface TreeNode {
  entry: { id: string; parentId: string | null; type: string };
  childCount: number;
}

async function treeOf(sessionId: string, key = s.alice.key): Promise<TreeNode[]> {
  const res = await s.call("GET", `/v1/sessions/${sessionId}/tree`, { key });
  expect(res.status).toBe(200);
  return ((await res.json()) as { nodes: TreeNode[] }).nodes;
}

beforeAll(async () => {
  s = await startHeadendServer({
    fallback: (body) => {
      const messages = body.messages as Array<{ role: string; content: unknown }>;
      const last = messages.filter((m) => m.role === "user").at(-1);
      const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content);
      if (text.includes("use a tool") && messages.at(-1)?.role === "user") {
        return { blocks: [{ type: "toolCall", name: "lookup", arguments: { q: "x" } }] };
      }
      return {
        blocks: [{ type: "text", text: `echo: ${text} (${messages.length} messages)` }],
        chunkSize: 3,
        usage: { input: 12, output: 7 },
      };
    },
  });
  client = new OpenAI({ baseURL: `${s.origin}/v1`, apiKey: s.alice.key, maxRetries: 0 });
});
afterAll(() => s.close());

describe("GET /v1/models", () => {
  it("lists the agents as models, and a name it does not have is model_not_found", async () => {
    const page = await client.models.list();
    expect(page.data.map((m) => m.id)).toEqual(["helper", "second"]);
    expect((await client.models.retrieve("helper")).owned_by).toBe("arbor");
    const error = await client.models.retrieve("nobody").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("model_not_found");
  });
});

describe("POST /v1/chat/completions", () => {
  it("stores the history as a new session and continues it from X-Arbor-Session", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: "helper",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "first" },
          { role: "assistant", content: "an earlier answer" },
          { role: "user", content: [{ type: "text", text: "second" }] },
        ],
      })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("helper");
    // The agent's system prompt, the client's system message, 3 messages of history and the prompt.
    expect(data.choices[0]?.message.content).toMatch(/^echo: second \(\d+ messages\)$/);
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 });
    const sessionId = response.headers.get("x-arbor-session");
    expect(sessionId).toBeTruthy();
    const before = Number(/\((\d+) messages\)/.exec(data.choices[0]?.message.content ?? "")?.[1]);

    const next = await client.chat.completions.create(
      { model: "helper", messages: [{ role: "user", content: "third" }] },
      { headers: { "X-Arbor-Session": sessionId as string } },
    );
    // The session had the rest: the previous prompt and answer came back from the tree.
    expect(next.choices[0]?.message.content).toBe(`echo: third (${before + 2} messages)`);

    const byMetadata = await client.chat.completions.create({
      model: "helper",
      messages: [{ role: "user", content: "fourth" }],
      metadata: { arbor_session: sessionId as string },
    });
    expect(byMetadata.choices[0]?.message.content).toBe(`echo: fourth (${before + 4} messages)`);
    const nodes = await treeOf(sessionId as string);
    // The system message is a custom message the model reads; the rest are messages.
    expect(nodes.filter((n) => n.entry.type === "custom_message")).toHaveLength(1);
    expect(nodes.filter((n) => n.entry.type === "message")).toHaveLength(2 + 2 * 3);
  });

  it("streams chat.completion.chunk deltas, the usage chunk and [DONE]", async () => {
    const stream = await client.chat.completions.create({
      model: "helper",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? "").join("");
    expect(text).toMatch(/^echo: stream me \(\d+ messages\)$/);
    expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? "") !== "").length).toBeGreaterThan(
      2,
    );
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 12, completion_tokens: 7 });

    const raw = await fetch(`${s.origin}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.alice.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "helper",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
    expect(raw.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect(raw.headers.get("x-arbor-session")).toBeTruthy();
    const body = await raw.text();
    expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
    expect(body).not.toContain('"usage"');
  });

  it("shows the agent's tool activity as reasoning_content when asked", async () => {
    const stream = await client.chat.completions.create(
      { model: "helper", messages: [{ role: "user", content: "use a tool" }], stream: true },
      { headers: { "X-Arbor-Tool-Activity": "true" } },
    );
    let reasoning = "";
    let content = "";
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string };
      reasoning += delta?.reasoning_content ?? "";
      content += delta?.content ?? "";
    }
    expect(reasoning).toContain("[tool lookup]");
    expect(reasoning).toMatch(/\[tool lookup (done|failed)\]/);
    expect(content).toMatch(/^echo: use a tool/);

    const quiet = await client.chat.completions.create({
      model: "helper",
      messages: [{ role: "user", content: "use a tool" }],
    });
    expect(quiet.choices[0]?.message).not.toHaveProperty("reasoning_content");
  });
});

describe("POST /v1/responses", () => {
  it("answers, and GET /v1/responses/:id reads the answer back from the tree", async () => {
    const response = await client.responses.create({
      model: "helper",
      instructions: "Be brief.",
      input: "hello",
    });
    expect(response.status).toBe("completed");
    expect(response.output_text).toMatch(/^echo: hello/);
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });
    const again = await client.responses.retrieve(response.id);
    expect(again.id).toBe(response.id);
    expect(again.output_text).toBe(response.output_text);
  });

  it("streams events with sequence numbers; two requests after one response make two branches", async () => {
    const first = await client.responses.create({ model: "helper", input: "root question" });
    const branch = async (input: string) => {
      const stream = await client.responses.create({
        model: "helper",
        input,
        previous_response_id: first.id,
        stream: true,
      });
      const events = [];
      for await (const event of stream) events.push(event);
      return events;
    };
    const a = await branch("branch a");
    const b = await branch("branch b");
    for (const events of [a, b]) {
      expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
      expect(events[0]?.type).toBe("response.created");
      expect(events.at(-1)?.type).toBe("response.completed");
      expect(events.some((e) => e.type === "response.output_text.delta")).toBe(true);
    }
    const doneA = a.at(-1) as { response: OpenAI.Responses.Response };
    const doneB = b.at(-1) as { response: OpenAI.Responses.Response };
    // Each branch saw the root exchange and its own prompt, not the other branch.
    expect(doneA.response.output_text ?? textOfResponse(doneA.response)).toMatch(/^echo: branch a/);
    expect(textOfResponse(doneB.response)).toMatch(/^echo: branch b/);
    expect(textOfResponse(doneA.response).match(/\((\d+) messages\)/)?.[1]).toBe(
      textOfResponse(doneB.response).match(/\((\d+) messages\)/)?.[1],
    );
    expect(doneA.response.previous_response_id).toBe(first.id);

    const sessionId = await sessionOfResponse(first.id);
    const nodes = await treeOf(sessionId);
    const forks = nodes.filter((n) => n.childCount === 2);
    expect(forks).toHaveLength(1);
    expect(nodes.filter((n) => n.entry.type === "message")).toHaveLength(6);
    // A third request continues branch b: its answer saw b's exchange.
    const deeper = await client.responses.create({
      model: "helper",
      input: "after b",
      previous_response_id: doneB.response.id,
    });
    expect(deeper.output_text).toMatch(/^echo: after b/);
    expect(await sessionOfResponse(deeper.id)).toBe(sessionId);
  });

  it("store: false leaves nothing behind", async () => {
    const before = await sessionCount();
    const response = await client.responses.create({
      model: "helper",
      input: "forget",
      store: false,
    });
    expect((response as unknown as { store: boolean }).store).toBe(false);
    expect(response.output_text).toMatch(/^echo: forget/);
    await waitUntil(async () => (await sessionCount()) === before);
    const gone = await client.responses.retrieve(response.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe("the Vercel AI SDK through @ai-sdk/openai-compatible", () => {
  it("generates and streams text from an agent", async () => {
    const arbor = createOpenAICompatible({
      name: "arbor",
      baseURL: `${s.origin}/v1`,
      apiKey: s.alice.key,
      includeUsage: true,
    });
    const generated = await generateText({ model: arbor("helper"), prompt: "via ai sdk" });
    expect(generated.text).toMatch(/^echo: via ai sdk/);
    expect(generated.usage.outputTokens).toBe(7);
    const streamed = streamText({ model: arbor("helper"), prompt: "streamed via ai sdk" });
    let text = "";
    for await (const delta of streamed.textStream) text += delta;
    expect(text).toMatch(/^echo: streamed via ai sdk/);
    expect((await streamed.usage).outputTokens).toBe(7);
  });
});

describe("errors in OpenAI's shape", () => {
  it("names the parameter of a bad body, and never answers 500 to a hostile one", async () => {
    const bad = await client.chat.completions
      .create({ model: "helper", messages: "nope" as never })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.APIError>).param).toBe("messages");
    const hostile: unknown[] = [
      "{not json",
      JSON.stringify({ model: "helper", messages: [{ role: "assistant", content: "x" }] }),
      JSON.stringify({
        model: "helper",
        messages: [
          { role: "tool", content: "x" },
          { role: "user", content: "y" },
        ],
      }),
      JSON.stringify({
        model: "helper",
        messages: [{ role: "user", content: [{ type: "image_url" }] }],
      }),
      JSON.stringify({ model: "x".repeat(5000), messages: [] }),
      JSON.stringify({ model: "helper", messages: [{ role: "user", content: "   " }] }),
      JSON.stringify([1, 2, 3]),
      JSON.stringify({ model: "helper", input: { nested: true } }),
      JSON.stringify({ model: "helper", input: "x", previous_response_id: "resp_../../etc" }),
      "[".repeat(10_000),
    ];
    for (const path of ["/v1/chat/completions", "/v1/responses"]) {
      for (const body of hostile) {
        const res = await s.call("POST", path, {
          body: body as string,
          headers: { "content-type": "application/json" },
        });
        expect(res.status, `${path} ${String(body).slice(0, 60)}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        const json = (await res.json()) as { error: Record<string, unknown> };
        expect(json.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
        expect(json.error).toHaveProperty("code");
      }
    }
    const unknown = await client.chat.completions
      .create({ model: "ghost", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as InstanceType<typeof OpenAI.APIError>).code).toBe("model_not_found");
    const noKey = new OpenAI({ baseURL: `${s.origin}/v1`, apiKey: "wrong", maxRetries: 0 });
    const denied = await noKey.models.list().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((denied as InstanceType<typeof OpenAI.APIError>).type).toBe("authentication_error");
  });

  it("another tenant's session and responses are 404", async () => {
    const { response } = await client.chat.completions
      .create({ model: "helper", messages: [{ role: "user", content: "mine" }] })
      .withResponse();
    const sessionId = response.headers.get("x-arbor-session") as string;
    const mine = await client.responses.create({ model: "helper", input: "mine too" });
    const bob = new OpenAI({ baseURL: `${s.origin}/v1`, apiKey: s.bob.key, maxRetries: 0 });
    const attempts = [
      () =>
        bob.chat.completions.create(
          { model: "helper", messages: [{ role: "user", content: "theirs" }] },
          { headers: { "X-Arbor-Session": sessionId } },
        ),
      () =>
        bob.chat.completions.create({
          model: "helper",
          messages: [{ role: "user", content: "theirs" }],
          metadata: { arbor_session: sessionId },
        }),
      () => bob.responses.retrieve(mine.id),
      () => bob.responses.create({ model: "helper", input: "x", previous_response_id: mine.id }),
      () =>
        bob.responses.create({
          model: "helper",
          input: "x",
          previous_response_id: mine.id,
          store: false,
        }),
    ];
    for (const attempt of attempts) {
      const error = await (attempt() as Promise<unknown>).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await treeOf(sessionId)).filter((n) => n.entry.type === "message")).toHaveLength(2);
  });
});

function textOfResponse(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === "message" ? item.content : []))
    .map((part) => (part.type === "output_text" ? part.text : ""))
    .join("");
}

async function sessionOfResponse(id: string): Promise<string> {
  const res = await fetch(`${s.origin}/v1/responses/${id}`, {
    headers: { authorization: `Bearer ${s.alice.key}` },
  });
  expect(res.status).toBe(200);
  return res.headers.get("x-arbor-session") as string;
}

async function sessionCount(): Promise<number> {
  const res = await s.call("GET", "/v1/sessions?limit=200");
  return ((await res.json()) as { sessions: unknown[] }).sessions.length;
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the condition never held");
    await new Promise((r) => setTimeout(r, 25));
  }
}
