import { collectStream } from "../../spec/collect.js";
import type { ModelEvent } from "../../spec/events.js";
import type { Model } from "../../spec/model.js";
import type { ModelRequest } from "../../spec/request.js";
import { FakeProviderServer, type RecordedRequest } from "../fake-server/fake-provider-server.js";
import { type ScriptedResponseInput, scriptedResponseSchema } from "../script.js";
import { scriptToEvents } from "../script-events.js";

/** What the suite checks a value with: the matchers it uses of vitest's or jest's `expect`. */
export interface ContractMatchers {
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toHaveLength(length: number): void;
  toContain(item: string): void;
  toBeLessThan(limit: number): void;
  toBe(expected: unknown): void;
}

/**
 * The test framework the contract registers its cases with, so the suite runs under
 * vitest or jest without this package depending on either.
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from "vitest";
 * describeAdapterContract(adapter, { describe, it, expect, beforeEach, afterEach });
 */
export interface ContractTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): ContractMatchers;
  beforeEach(hook: () => Promise<void>): void;
  afterEach(hook: () => Promise<void>): void;
}

/** An adapter as the contract suite sees it. */
export interface AdapterUnderTest {
  name: string;
  /** The model id the adapter sends and reports. */
  modelId: string;
  /** Builds the adapter against a fake server. */
  create(server: FakeProviderServer, options: { idleTimeoutMs: number }): Model;
  /** Whether the wire carries thinking signatures (Anthropic yes, OpenAI no). */
  thinkingSignatures: boolean;
  /** Whether the wire reports cache writes (Anthropic yes, OpenAI no). */
  cacheWrite: boolean;
  /**
   * Whether tool calls arrive whole (Gemini, Bedrock's small calls): the arguments come as
   * one delta, and broken argument JSON cannot be sent at all. Default false.
   */
  wholeToolCalls?: boolean;
  /**
   * The model and streaming mode a recorded request asked for. Default: the body's `model`
   * and `stream` (Gemini names both in the path instead).
   */
  callOf?(request: RecordedRequest): { model: unknown; stream: unknown };
}

const REQUEST: ModelRequest = {
  system: "You are terse.",
  messages: [{ role: "user", content: "Read a.txt" }],
  tools: [
    {
      name: "read_file",
      description: "Reads a file",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ],
  maxOutputTokens: 256,
};

/** Success scripts whose events an adapter must reproduce exactly. */
const STREAMS: Record<string, ScriptedResponseInput> = {
  "a single text block": "The answer is 42.",
  "text split into one-character deltas, unicode included": {
    blocks: [{ type: "text", text: "naïve 🌳 ok" }],
    chunkSize: 1,
  },
  "thinking before text": {
    blocks: [
      { type: "thinking", thinking: "The user wants a file.", signature: "sig-abc" },
      { type: "text", text: "Reading it." },
    ],
    chunkSize: 5,
  },
  "tool calls with arguments streamed in fragments": {
    blocks: [
      { type: "text", text: "Let me look." },
      { type: "toolCall", id: "call_1", name: "read_file", arguments: { path: "src/a.ts" } },
      {
        type: "toolCall",
        id: "call_2",
        name: "read_file",
        arguments: { path: "b.md", lines: [1, 2] },
      },
    ],
    chunkSize: 3,
  },
  "a tool call with empty arguments": {
    blocks: [{ type: "toolCall", id: "call_e", name: "read_file", argumentsText: "" }],
  },
  "usage with cache reads and writes": {
    blocks: [{ type: "text", text: "cached" }],
    usage: { input: 1200, output: 80, cacheRead: 900, cacheWrite: 300 },
  },
  "the output limit": { blocks: [{ type: "text", text: "I was cut of" }], stopReason: "length" },
};

const HTTP_KINDS = [
  "rate_limit",
  "auth_error",
  "quota_exceeded",
  "model_error",
  "context_overflow",
] as const;
const TRANSPORT_KINDS = ["network_error", "invalid_response", "timeout"] as const;

/**
 * Registers the adapter contract: the adapter, reading a fake server playing a script,
 * must emit exactly the events the scripted model emits for that script (modulo what the
 * wire cannot carry), classify every failure kind before and during the stream, never
 * throw, and cancel the HTTP request on abort.
 */
export function describeAdapterContract(adapter: AdapterUnderTest, api: ContractTestApi): void {
  const { describe, it, expect, beforeEach, afterEach } = api;
  const expectOneTerminalEvent = (events: readonly ModelEvent[]): void => {
    const terminal = events.filter((event) => event.type === "done" || event.type === "error");
    expect(terminal).toHaveLength(1);
    expect(events.at(-1)).toBe(terminal[0]);
  };
  describe(`${adapter.name} adapter contract`, () => {
    let server: FakeProviderServer;
    beforeEach(async () => {
      server = await FakeProviderServer.start({ anthropicNoise: true });
    });
    afterEach(async () => {
      await server.close();
    });

    const model = (idleTimeoutMs = 5000) => adapter.create(server, { idleTimeoutMs });
    const expected = (script: ScriptedResponseInput) =>
      normalize(scriptToEvents(scriptedResponseSchema.parse(script), adapter.modelId), adapter);
    const run = async (
      script: ScriptedResponseInput,
      request: ModelRequest = REQUEST,
      idle = 5000,
    ) => {
      server.script(script);
      const collected = await collectStream(model(idle).stream(request));
      expectOneTerminalEvent(collected.events);
      return collected;
    };

    for (const [name, script] of Object.entries(STREAMS)) {
      it(`reproduces ${name} event for event`, async () => {
        const { events } = await run(script);
        expect(normalize(events, adapter)).toEqual(expected(script));
      });
    }

    it("sends the request as a streaming call for the configured model", async () => {
      await run("ok");
      expect(server.requests).toHaveLength(1);
      const recorded = server.requests[0];
      if (recorded === undefined) throw new Error("no request was recorded");
      const body = recorded.body as { model?: unknown; stream?: unknown };
      const call = adapter.callOf?.(recorded) ?? { model: body.model, stream: body.stream };
      expect(call).toEqual({ model: adapter.modelId, stream: true });
      expect(JSON.stringify(server.requests[0]?.body)).toContain("read_file");
    });

    for (const kind of HTTP_KINDS) {
      it(`classifies a ${kind} response before the stream`, async () => {
        const script = {
          error: { kind, retryAfterMs: kind === "rate_limit" ? 1500 : undefined },
        };
        const { events } = await run(script);
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({ type: "error", kind });
        if (kind === "rate_limit") expect(events[0]).toMatchObject({ retryAfterMs: 1500 });
      });
    }

    for (const kind of [...HTTP_KINDS, ...TRANSPORT_KINDS]) {
      it(`classifies ${kind} in the middle of a stream`, async () => {
        const script = {
          blocks: [{ type: "text" as const, text: "partial answer" }],
          chunkSize: 2,
          error: { kind, afterDeltas: 3 },
        };
        const { events } = await run(script, REQUEST, 300);
        expect(normalize(events, adapter)).toEqual(expected(script));
      });
    }

    for (const kind of ["network_error", "invalid_response", "timeout"] as const) {
      it(`classifies ${kind} before any chunk`, async () => {
        const { events } = await run({ error: { kind } }, REQUEST, 300);
        expect(normalize(events, adapter)).toEqual([{ type: "error", kind }]);
      });
    }

    const brokenJson = adapter.wholeToolCalls
      ? (_name: string, _body: () => Promise<void>) => {}
      : it;
    brokenJson("reports broken tool-call JSON as invalid_response after its deltas", async () => {
      const script = {
        blocks: [
          {
            type: "toolCall" as const,
            id: "call_x",
            name: "read_file",
            argumentsText: '{"path": "a',
          },
        ],
        chunkSize: 4,
      };
      const { events } = await run(script);
      expect(normalize(events, adapter)).toEqual(expected(script));
      expect(events.at(-1)).toMatchObject({ type: "error", kind: "invalid_response" });
    });

    it("cancels the HTTP request when aborted mid-stream", async () => {
      server.script({
        blocks: [{ type: "text", text: "x".repeat(200) }],
        chunkSize: 1,
        delayMs: 5,
      });
      const controller = new AbortController();
      const events: ModelEvent[] = [];
      for await (const event of model().stream({ ...REQUEST, signal: controller.signal })) {
        events.push(event);
        if (events.filter((e) => e.type === "text_delta").length === 3) controller.abort();
      }
      expectOneTerminalEvent(events);
      expect(events.at(-1)).toMatchObject({ type: "error", kind: "aborted" });
      expect(events.filter((e) => e.type === "text_delta").length).toBeLessThan(200);
      const seen = await server.waitForDisconnect(0);
      expect(seen.completed).toBe(false);
    });

    it("cancels the HTTP request when the consumer stops reading", async () => {
      server.script({
        blocks: [{ type: "text", text: "y".repeat(200) }],
        chunkSize: 1,
        delayMs: 5,
      });
      let deltas = 0;
      for await (const event of model().stream(REQUEST)) {
        if (event.type === "text_delta" && ++deltas === 2) break;
      }
      const seen = await server.waitForDisconnect(0);
      expect(seen.completed).toBe(false);
    });

    it("cancels a request that is still waiting for headers", async () => {
      server.script({ error: { kind: "aborted" } });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const { events } = await collectStream(
        model().stream({ ...REQUEST, signal: controller.signal }),
      );
      expect(normalize(events, adapter)).toEqual([{ type: "error", kind: "aborted" }]);
      await server.waitForDisconnect(0);
    });

    it("does not call the server when the signal is already aborted", async () => {
      const { events } = await collectStream(
        model().stream({ ...REQUEST, signal: AbortSignal.abort() }),
      );
      expect(normalize(events, adapter)).toEqual([{ type: "error", kind: "aborted" }]);
      expect(server.requests).toHaveLength(0);
    });

    it("classifies a refused connection as network_error", async () => {
      const gone = await FakeProviderServer.start();
      await gone.close();
      const { events } = await collectStream(
        adapter.create(gone, { idleTimeoutMs: 2000 }).stream(REQUEST),
      );
      expect(normalize(events, adapter)).toEqual([{ type: "error", kind: "network_error" }]);
    });

    it("counts keep-alive bytes as activity for the idle timeout", async () => {
      const slow = await FakeProviderServer.start({ keepAliveMs: 40 });
      try {
        slow.script({ blocks: [{ type: "text", text: "ab" }], chunkSize: 1, delayMs: 350 });
        const { events } = await collectStream(
          adapter.create(slow, { idleTimeoutMs: 200 }).stream(REQUEST),
        );
        expect(events.at(-1)).toEqual({ type: "done", reason: "stop" });
      } finally {
        await slow.close();
      }
    });

    it("drops the connection when the idle timeout fires", async () => {
      const { events } = await run(
        {
          blocks: [{ type: "text", text: "abcd" }],
          chunkSize: 1,
          error: { kind: "timeout", afterDeltas: 2 },
        },
        REQUEST,
        150,
      );
      expect(events.at(-1)).toMatchObject({ type: "error", kind: "timeout" });
      await server.waitForDisconnect(0);
    });
  });
}

/** Drops what legitimately differs between wire and script: messages, statuses, and fields a wire cannot carry. */
function normalize(events: readonly ModelEvent[], adapter: AdapterUnderTest): unknown[] {
  const midStream = events.length > 1;
  return (adapter.wholeToolCalls ? mergeToolDeltas(events) : events).map((event) => {
    if (event.type === "error") {
      return {
        type: "error",
        kind: event.kind,
        ...(event.retryAfterMs !== undefined && !midStream
          ? { retryAfterMs: event.retryAfterMs }
          : {}),
      };
    }
    if (event.type === "thinking_end" && !adapter.thinkingSignatures) {
      return { type: event.type, index: event.index, thinking: event.thinking };
    }
    if (event.type === "usage" && !adapter.cacheWrite) {
      return { type: "usage", usage: { ...event.usage, cacheWrite: 0 } };
    }
    return event;
  });
}

/** Joins the argument deltas of each tool call into one, as a wire with whole calls sends them. */
function mergeToolDeltas(events: readonly ModelEvent[]): ModelEvent[] {
  const merged: ModelEvent[] = [];
  for (const event of events) {
    const last = merged.at(-1);
    if (
      event.type === "toolcall_delta" &&
      last?.type === "toolcall_delta" &&
      last.index === event.index
    ) {
      merged[merged.length - 1] = { ...last, delta: last.delta + event.delta };
    } else merged.push(event);
  }
  return merged;
}
