import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { startHeadendServer } from "./headend-server.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

const slow = () => ({
  blocks: [{ type: "text" as const, text: "z".repeat(40) }],
  chunkSize: 1,
  delayMs: 20,
});

describe("OpenAI headend limits", () => {
  it("a streamed answer counts against the key's stream limit", async () => {
    const s = await startHeadendServer({ fallback: slow, limits: { sseStreamsPerKey: 1 } });
    try {
      const client = new OpenAI({ baseURL: `${s.origin}/v1`, apiKey: s.alice.key, maxRetries: 0 });
      const ask = () =>
        client.chat.completions.create({
          model: "helper",
          stream: true,
          messages: [{ role: "user", content: "hi" }],
        });
      const first = await ask();
      const second = await ask().catch((e: unknown) => e);
      expect(second).toBeInstanceOf(OpenAI.RateLimitError);
      expect((second as InstanceType<typeof OpenAI.APIError>).code).toBe("too_many_streams");
      let text = "";
      for await (const chunk of first) text += chunk.choices[0]?.delta.content ?? "";
      expect(text).toBe("z".repeat(40));
      const third = await ask();
      for await (const _ of third) {
        // read to the end: the place is given back
      }
    } finally {
      await s.close();
    }
  }, 60_000);

  it("a request that is not streamed waits at most requestTimeoutMs; the answer is still stored", async () => {
    const s = await startHeadendServer({ fallback: slow, limits: { requestTimeoutMs: 300 } });
    try {
      const res = await fetch(`${s.origin}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${s.alice.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "helper", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(408);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("invalid_request_error");
      const sessionId = res.headers.get("x-arbor-session");
      // The header is set before the wait: the client can find the answer in the session.
      expect(sessionId).toBeTruthy();
      for (;;) {
        const entries = (await (
          await s.call("GET", `/v1/sessions/${sessionId}/entries`)
        ).json()) as {
          entries: Array<{ message?: { role: string } }>;
        };
        if (entries.entries.some((e) => e.message?.role === "assistant")) break;
        await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});
