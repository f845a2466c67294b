import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AuthFailures } from "../../src/http/auth-failures.js";
import { tenantAuth } from "../../src/http/bearer-auth.js";
import type { ServerEnv } from "../../src/http/server-env.js";
import { McpSessions, mcpRoutes } from "../../src/index.js";
import { newSession } from "../helpers/test-app.js";
import { type HeadendServer, lastUserText, startHeadendServer } from "./headend-server.js";
import { mcpClient } from "./mcp-client.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let s: HeadendServer;
let client: Client;

interface Structured {
  text: string;
  session: string;
  leaf: string | null;
}

beforeAll(async () => {
  s = await startHeadendServer({
    fallback: (body) => {
      const text = lastUserText(body);
      const count = (body.messages as unknown[]).length;
      if (text.startsWith("slow")) {
        return { blocks: [{ type: "text", text: "z".repeat(400) }], chunkSize: 1, delayMs: 25 };
      }
      return {
        blocks: [{ type: "text", text: `echo: ${text} (${count} messages)` }],
        chunkSize: 4,
      };
    },
  });
  ({ client } = await mcpClient(s.origin, s.alice.key));
});
afterAll(async () => {
  await client.close();
  await s.close();
});

async function treeNodes(sessionId: string) {
  const read = await client.readResource({ uri: `arbor://sessions/${sessionId}/tree` });
  const first = read.contents[0] as { text: string; mimeType: string };
  expect(first.mimeType).toBe("application/json");
  return JSON.parse(first.text) as {
    leafId: string;
    nodes: Array<{ id: string; type: string; childCount: number; role?: string }>;
  };
}

describe("MCP at /mcp", () => {
  it("offers each agent as a tool with { prompt, session?, entry? } in and { text, session, leaf } out", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["helper", "second"]);
    const helper = tools[0];
    expect(Object.keys(helper?.inputSchema.properties ?? {})).toEqual([
      "prompt",
      "session",
      "entry",
    ]);
    expect(helper?.inputSchema.required).toEqual(["prompt"]);
    expect(Object.keys(helper?.outputSchema?.properties ?? {})).toEqual([
      "text",
      "session",
      "leaf",
    ]);
  });

  it("answers with progress, continues a session and branches from an entry", async () => {
    const progress: Array<{ progress: number; message?: string }> = [];
    const first = await client.callTool(
      { name: "helper", arguments: { prompt: "hello" } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    const one = first.structuredContent as unknown as Structured;
    expect(one.text).toMatch(/^echo: hello \(\d+ messages\)$/);
    expect(first.content).toEqual([{ type: "text", text: one.text }]);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.message).join("")).toBe(one.text);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));

    const second = await client.callTool({
      name: "helper",
      arguments: { prompt: "again", session: one.session },
    });
    const two = second.structuredContent as unknown as Structured;
    expect(two.session).toBe(one.session);
    const before = Number(/\((\d+) messages\)/.exec(one.text)?.[1]);
    expect(two.text).toBe(`echo: again (${before + 2} messages)`);

    const branch = await client.callTool({
      name: "helper",
      arguments: { prompt: "other way", session: one.session, entry: one.leaf as string },
    });
    const three = branch.structuredContent as unknown as Structured;
    expect(three.text).toBe(`echo: other way (${before + 2} messages)`);
    const tree = await treeNodes(one.session);
    expect(tree.leafId).toBe(three.leaf);
    expect(tree.nodes.find((n) => n.id === one.leaf)?.childCount).toBe(2);
  });

  it("reads sessions as resources and offers a resume prompt", async () => {
    const made = await client.callTool({ name: "helper", arguments: { prompt: "remember me" } });
    const { session } = made.structuredContent as unknown as Structured;
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(`arbor://sessions/${session}`);
    const read = await client.readResource({ uri: `arbor://sessions/${session}` });
    const markdown = read.contents[0] as { text: string; mimeType: string };
    expect(markdown.mimeType).toBe("text/markdown");
    expect(markdown.text).toContain(`# Session ${session}`);
    expect(markdown.text).toContain("### user\n\nremember me");
    expect(markdown.text).toMatch(/### assistant\n\necho: remember me/);
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toEqual(["resume"]);
    const resume = await client.getPrompt({ name: "resume", arguments: { session } });
    const content = resume.messages[0]?.content as { type: string; text: string };
    expect(content.text).toContain("remember me");
    expect(content.text).toContain(session);
  });

  it("cancelling a call aborts the run", async () => {
    const sessionId = await newSession(s);
    const cancel = new AbortController();
    let seen = 0;
    const call = client
      .callTool(
        { name: "helper", arguments: { prompt: "slow please", session: sessionId } },
        undefined,
        {
          signal: cancel.signal,
          onprogress: () => {
            seen++;
            if (seen === 3) cancel.abort();
          },
        },
      )
      .catch((e: unknown) => e);
    expect(await call).toBeInstanceOf(Error);
    // The run ends aborted: the partial answer is stored, marked so.
    for (;;) {
      const res = await s.call("GET", `/v1/sessions/${sessionId}/entries`);
      const { entries } = (await res.json()) as {
        entries: Array<{ type: string; message?: { role: string; stopReason?: string } }>;
      };
      const answer = entries.find((e) => e.message?.role === "assistant");
      if (answer) {
        expect(answer.message?.stopReason).toBe("aborted");
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  });

  it("keeps tenants apart: another tenant's sessions are not found", async () => {
    const made = await client.callTool({ name: "helper", arguments: { prompt: "private" } });
    const { session } = made.structuredContent as unknown as Structured;
    const { client: bob, transport } = await mcpClient(s.origin, s.bob.key);
    const call = await bob.callTool({ name: "helper", arguments: { prompt: "x", session } });
    expect(call.isError).toBe(true);
    expect(JSON.stringify(call.content)).toContain("404");
    const read = await bob
      .readResource({ uri: `arbor://sessions/${session}` })
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(McpError);
    expect((read as McpError).code).toBe(-32002);
    const bobResources = await bob.listResources();
    expect(bobResources.resources.map((r) => r.uri)).not.toContain(`arbor://sessions/${session}`);
    // Bob's key on Alice's MCP session: not found, as an unknown session.
    const aliceSession = (client.transport as { sessionId?: string }).sessionId as string;
    const res = await fetch(`${s.origin}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${s.bob.key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": aliceSession,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
    await bob.close();
    void transport;
  });

  it("answers hostile requests in JSON-RPC's shape, never 500", async () => {
    const headers = {
      authorization: `Bearer ${s.alice.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const bodies = [
      "{not json",
      "[]",
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "helper" } }),
      JSON.stringify({ hello: "world" }),
      "x".repeat(100),
    ];
    for (const body of bodies) {
      const res = await fetch(`${s.origin}/mcp`, { method: "POST", headers, body });
      expect(res.status, body.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await res.json()).toMatchObject({
        jsonrpc: "2.0",
        error: { code: expect.any(Number) },
      });
    }
    const tooBig = await fetch(`${s.origin}/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { pad: "x".repeat(2_000_000) },
      }),
    });
    expect(tooBig.status).toBe(413);
    const noKey = await fetch(`${s.origin}/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: "" },
      body: "{}",
    });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    // A session's tool call with bad arguments is a tool error, not a crash.
    const bad = await client
      .callTool({ name: "helper", arguments: { prompt: 42 } as never })
      .catch((e: unknown) => e);
    const badText = JSON.stringify(
      bad instanceof Error ? bad.message : (bad as { content: unknown }).content,
    );
    expect(badText).toMatch(/prompt/);
    const made = await client.callTool({ name: "helper", arguments: { prompt: "y" } });
    const { session } = made.structuredContent as unknown as Structured;
    const entry = await client.callTool({
      name: "helper",
      arguments: { prompt: "x", session, entry: "nope" },
    });
    expect(entry.isError).toBe(true);
    expect(JSON.stringify(entry.content)).toContain("nope");
  });

  it("holds a bounded number of MCP sessions; the least recently used is closed", async () => {
    const sessions = new McpSessions(s.deps, { maxSessions: 2 });
    const auth = tenantAuth(s.deps.keys, new AuthFailures(s.deps.limits.authFailuresPerMinute));
    const app = new Hono<ServerEnv>().route("/mcp", mcpRoutes(s.deps, auth, sessions));
    const { serve } = await import("@hono/node-server");
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const l = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(l));
    });
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const a = await mcpClient(origin, s.alice.key);
      await mcpClient(origin, s.alice.key);
      await mcpClient(origin, s.alice.key);
      expect(sessions.size).toBe(2);
      const gone = await a.client.listTools().catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(Error);
    } finally {
      await sessions.close();
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
