import { type Part, Role, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type HeadendServer, lastUserText, startHeadendServer } from "./headend-server.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let s: HeadendServer;

/** An A2A SDK client over JSON-RPC with a key (the card is fetched from the well-known path). */
async function a2aClient(key: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${key}`);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl })],
  });
  return factory.createFromUrl(s.origin);
}

function userMessage(text: string, contextId = "", metadata?: Record<string, unknown>) {
  return {
    messageId: `m-${Math.random().toString(16).slice(2)}`,
    contextId,
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: "text" as const, value: text },
        metadata: undefined,
        filename: "",
        mediaType: "text/plain",
      },
    ],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

function request(text: string, contextId = "", metadata?: Record<string, unknown>) {
  return {
    tenant: "",
    message: userMessage(text, contextId, metadata),
    configuration: undefined,
    metadata: undefined,
  };
}

function textOfParts(parts: Array<{ content?: { $case: string; value: unknown } }>): string {
  return parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")).join("");
}

beforeAll(async () => {
  s = await startHeadendServer({
    fallback: (body) => {
      const text = lastUserText(body);
      if (text.startsWith("slow")) {
        return { blocks: [{ type: "text", text: "z".repeat(400) }], chunkSize: 1, delayMs: 25 };
      }
      return {
        blocks: [
          { type: "text", text: `echo: ${text} (${(body.messages as unknown[]).length} messages)` },
        ],
        chunkSize: 4,
      };
    },
  });
});
afterAll(() => s.close());

describe("A2A", () => {
  it("serves an agent card with a skill per agent and the bearer scheme", async () => {
    const res = await fetch(`${s.origin}/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown>;
    expect((card.skills as Array<{ id: string }>).map((skill) => skill.id)).toEqual([
      "helper",
      "second",
    ]);
    expect(JSON.stringify(card.securitySchemes)).toMatch(/Bearer/);
    expect(card.capabilities).toMatchObject({ streaming: true });
  });

  it("sends a message (a task is a run, its context a session) and gets the task back", async () => {
    const client = await a2aClient(s.alice.key);
    const result = (await client.sendMessage(request("hello a2a"))) as {
      id: string;
      contextId: string;
      status: { state: TaskState };
      artifacts: Array<{ parts: Part[] }>;
    };
    expect(result.id).toMatch(/^run_/);
    expect(result.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = textOfParts(result.artifacts[0]?.parts ?? []);
    expect(text).toMatch(/^echo: hello a2a/);
    // The run and the session are the native API's.
    expect((await s.call("GET", `/v1/runs/${result.id}`)).status).toBe(200);
    expect((await s.call("GET", `/v1/sessions/${result.contextId}`)).status).toBe(200);
    const got = await client.getTask({ tenant: "", id: result.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOfParts(got.artifacts[0]?.parts ?? [])).toBe(text);
    // The same context continues the session; metadata.agent picks the agent.
    const next = (await client.sendMessage(
      request("again", result.contextId, { agent: "second" }),
    )) as {
      contextId: string;
      artifacts: Array<{ parts: Part[] }>;
    };
    expect(next.contextId).toBe(result.contextId);
    const before = Number(/\((\d+) messages\)/.exec(text)?.[1]);
    expect(textOfParts(next.artifacts[0]?.parts ?? [])).toBe(
      `echo: again (${before + 2} messages)`,
    );
  });

  it("streams status and artifact updates", async () => {
    const client = await a2aClient(s.alice.key);
    const events = [];
    for await (const event of client.sendMessageStream(request("stream a2a"))) events.push(event);
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("artifactUpdate");
    expect(kinds.at(-1)).toBe("statusUpdate");
    const last = events.at(-1)?.payload as { value: { status: { state: TaskState } } };
    expect(last.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = events
      .map((e) =>
        e.payload?.$case === "artifactUpdate"
          ? textOfParts(e.payload.value.artifact?.parts ?? [])
          : "",
      )
      .join("");
    expect(text).toMatch(/^echo: stream a2a/);
  });

  it("cancels a task: the run is aborted", async () => {
    const client = await a2aClient(s.alice.key);
    const started = (await client.sendMessage({
      ...request("slow one"),
      configuration: {
        acceptedOutputModes: [],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
    })) as { id: string };
    const cancelled = await client.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = (await (await s.call("GET", `/v1/runs/${started.id}`)).json()) as {
      status: string;
    };
    expect(["aborted", "cancelled"]).toContain(run.status);
    const again = await client
      .cancelTask({ tenant: "", id: started.id, metadata: undefined })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Error);
  });

  it("accepts the v0.3 method names", async () => {
    // The SDK's client speaks v1.0; v0.3 clients send these requests.
    const call = (method: string, params: unknown) =>
      fetch(`${s.origin}/a2a`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.alice.key}`, "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
      }).then((r) => r.json() as Promise<{ result?: Record<string, unknown>; error?: unknown }>);
    const sent = await call("message/send", {
      message: {
        kind: "message",
        messageId: "m1",
        role: "user",
        parts: [{ kind: "text", text: "old names" }],
      },
    });
    expect(sent.error).toBeUndefined();
    const task = sent.result as {
      id: string;
      kind: string;
      status: { state: string };
      artifacts: Array<{ parts: Array<{ text: string }> }>;
    };
    expect(task.status.state).toBe("completed");
    expect(task.artifacts[0]?.parts[0]?.text).toMatch(/^echo: old names/);
    const got = await call("tasks/get", { id: task.id });
    expect((got.result as { status: { state: string } }).status.state).toBe("completed");
    const stream = await fetch(`${s.origin}/a2a`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.alice.key}`, "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "message/stream",
        params: {
          message: {
            kind: "message",
            messageId: "m2",
            role: "user",
            parts: [{ kind: "text", text: "old stream" }],
          },
        },
      }),
    });
    const body = await stream.text();
    expect(body).toContain('"kind":"artifact-update"');
    expect(body).toContain('"final":true');
    const cancel = await call("tasks/cancel", { id: task.id });
    expect(cancel.error).toMatchObject({ code: -32002 });
  });

  it("another tenant's tasks and contexts are not found; hostile bodies get JSON-RPC errors", async () => {
    const alice = await a2aClient(s.alice.key);
    const mine = (await alice.sendMessage(request("mine"))) as { id: string; contextId: string };
    const bob = await a2aClient(s.bob.key);
    for (const attempt of [
      () => bob.getTask({ tenant: "", id: mine.id }),
      () => bob.cancelTask({ tenant: "", id: mine.id, metadata: undefined }),
      () => bob.sendMessage(request("theirs", mine.contextId)),
    ]) {
      const error = (await attempt().catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(/not found|no (task|context)/i);
    }
    const post = (body: string, key: string | null = s.alice.key) =>
      fetch(`${s.origin}/a2a`, {
        method: "POST",
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          "content-type": "application/json",
        },
        body,
      });
    for (const body of [
      "{nope",
      "[]",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: {} }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: 5 } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "../../etc" } }),
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "NoSuchMethod" }),
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: {
            kind: "message",
            messageId: "x",
            role: "user",
            parts: [{ kind: "file", file: { uri: "http://x" } }],
          },
        },
      }),
    ]) {
      const res = await post(body);
      expect(res.status, body.slice(0, 50)).toBeLessThan(500);
      expect(await res.json()).toMatchObject({
        jsonrpc: "2.0",
        error: { code: expect.any(Number) },
      });
    }
    const denied = await post("{}", null);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
  });
});

describe("A2A streams", () => {
  it("count against the key's stream limit", async () => {
    const limited = await startHeadendServer({
      fallback: () => ({
        blocks: [{ type: "text", text: "z".repeat(200) }],
        chunkSize: 1,
        delayMs: 20,
      }),
      limits: { sseStreamsPerKey: 1 },
    });
    try {
      const stream = (n: number) =>
        fetch(`${limited.origin}/a2a`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${limited.alice.key}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: n,
            method: "message/stream",
            params: {
              message: {
                kind: "message",
                messageId: `m${n}`,
                role: "user",
                parts: [{ kind: "text", text: "hi" }],
              },
            },
          }),
        });
      const first = await stream(1);
      expect(first.status).toBe(200);
      const second = await stream(2);
      expect(second.status).toBe(429);
      expect(await second.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      await first.text();
      const third = await stream(3);
      expect(third.status).toBe(200);
      await third.text();
    } finally {
      await limited.close();
    }
  }, 60_000);
});
