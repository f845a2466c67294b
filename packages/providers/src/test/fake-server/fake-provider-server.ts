import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  DEFAULT_SCRIPT_USAGE,
  type ScriptedResponse,
  type ScriptedResponseInput,
  scriptErrorMessage,
  scriptedResponseSchema,
} from "../script.js";
import { geminiEncoder, geminiFault } from "./gemini-encoder.js";
import { FakeCacheRequestError, FakePromptCache } from "./prompt-cache.js";
import { responsesEncoder } from "./responses-encoder.js";
import { encodeSseEvent } from "./sse.js";
import { anthropicEncoder, openaiEncoder, type WireEncoder } from "./wire-encoders.js";
import { anthropicFault, openaiFault, type WireFault } from "./wire-errors.js";
import { planWire, type WireStep } from "./wire-plan.js";

/** Azure OpenAI's Chat Completions path: `/openai/deployments/{deployment}/chat/completions`. */
const AZURE_CHAT = /^\/openai\/deployments\/[^/]+\/chat\/completions$/;

/** The API a recorded request went to. */
export type FakeApi = "openai" | "anthropic" | "openai-responses" | "google-gemini";

/** One request the fake server received. */
export interface RecordedRequest {
  api: FakeApi;
  method: string;
  path: string;
  /** The query string without its `?` (Azure's `api-version`), empty when there is none. */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (or the raw text when it was not JSON). */
  body: unknown;
  /** True once the client went away before the response was complete. */
  disconnected: boolean;
  /** True once the response was fully written. */
  completed: boolean;
}

/** Options of {@link FakeProviderServer.start}. */
export interface FakeProviderServerOptions {
  /** Answers for successive calls, shared by both endpoints, in order. */
  responses?: readonly ScriptedResponseInput[];
  /** Port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Adds pings after every delta and an unknown event type to Anthropic streams. */
  anthropicNoise?: boolean;
  /** While a stream is open, send a keep-alive (Anthropic `ping`, OpenAI SSE comment) this often. */
  keepAliveMs?: number;
  /** Answers calls once the script is used up (e.g. an echo for manual use); without it they get a 500. */
  fallback?: (body: Record<string, unknown>, api: FakeApi) => ScriptedResponseInput;
  /**
   * Model the vendors' prompt caches ({@link FakePromptCache}): the input side of each
   * call's usage (input, cache reads, cache writes) is computed from the request body
   * instead of taken from the script; output tokens still come from the script.
   */
  promptCache?: boolean;
}

/**
 * Wire-exact fake OpenAI Chat Completions (`/v1/chat/completions`), OpenAI Responses
 * (`/v1/responses`), Gemini (`/v1beta/models/{model}:streamGenerateContent?alt=sse`) and
 * Anthropic (`/v1/messages`) servers
 * on loopback, driven by the same scripts as the scripted model. Scripted failures become
 * what the real APIs send: HTTP errors with headers, mid-stream error events, cut
 * connections, stalls and malformed chunks.
 *
 * @example
 * ```ts
 * const server = await FakeProviderServer.start({ responses: ["Hello"] });
 * const client = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL });
 * await server.close();
 * ```
 */
export class FakeProviderServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #queue: ScriptedResponse[] = [];
  readonly #noise: boolean;
  readonly #fallback: FakeProviderServerOptions["fallback"];
  readonly #keepAliveMs: number | undefined;
  readonly #cache: FakePromptCache | undefined;
  readonly #disconnectWaiters: Array<() => void> = [];
  #url = "";

  private constructor(options: FakeProviderServerOptions) {
    this.#noise = options.anthropicNoise ?? false;
    this.#fallback = options.fallback;
    this.#keepAliveMs = options.keepAliveMs;
    this.#cache = options.promptCache ? new FakePromptCache() : undefined;
    this.script(...(options.responses ?? []));
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.on("connection", (socket) => {
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  /** Starts a server on 127.0.0.1 and resolves once it listens. */
  static async start(options: FakeProviderServerOptions = {}): Promise<FakeProviderServer> {
    const server = new FakeProviderServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once("error", reject);
      server.#server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
    });
    const { port } = server.#server.address() as AddressInfo;
    server.#url = `http://127.0.0.1:${port}`;
    return server;
  }

  /** The server's origin, e.g. `http://127.0.0.1:43817`. */
  get url(): string {
    return this.#url;
  }

  /** The base URL for the `openai` client (`…/v1`). */
  get openaiBaseURL(): string {
    return `${this.#url}/v1`;
  }

  /** The base URL for the `@google/genai` client (the origin; the SDK adds `/v1beta/…`). */
  get geminiBaseURL(): string {
    return this.#url;
  }

  /**
   * The endpoint for Azure OpenAI (the origin): it answers
   * `/openai/deployments/{deployment}/chat/completions` and `/openai/responses`.
   */
  get azureEndpoint(): string {
    return this.#url;
  }

  /** The base URL for the `@anthropic-ai/sdk` client (the origin). */
  get anthropicBaseURL(): string {
    return this.#url;
  }

  /** Scripted answers not used yet. */
  get remaining(): number {
    return this.#queue.length;
  }

  /** Appends answers for the next calls. */
  script(...responses: ScriptedResponseInput[]): this {
    for (const response of responses) this.#queue.push(scriptedResponseSchema.parse(response));
    return this;
  }

  /**
   * Resolves once the client of request `index` has disconnected before its response
   * completed, proving an abort reached the socket.
   *
   * @throws Error when that does not happen within `timeoutMs`.
   */
  async waitForDisconnect(index: number, timeoutMs = 2000): Promise<RecordedRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const request = this.requests[index];
      if (request?.disconnected) return request;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`fake server: request #${index} did not disconnect within ${timeoutMs} ms`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#disconnectWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Stops listening and destroys open connections (stalled streams included). */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const gemini =
      /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent)$/.exec(path);
    const api: FakeApi | undefined = gemini
      ? "google-gemini"
      : req.method === "POST" && (path === "/v1/chat/completions" || AZURE_CHAT.test(path))
        ? "openai"
        : req.method === "POST" && path === "/v1/messages"
          ? "anthropic"
          : req.method === "POST" && (path === "/v1/responses" || path === "/openai/responses")
            ? "openai-responses"
            : undefined;
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // recorded as text; the handlers below answer 400
    }
    const record: RecordedRequest = {
      api: api ?? "openai",
      method: req.method ?? "GET",
      path,
      query: (req.url ?? "").split("?")[1] ?? "",
      headers: req.headers,
      body,
      disconnected: false,
      completed: false,
    };
    this.requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) {
        record.disconnected = true;
        for (const wake of this.#disconnectWaiters.splice(0)) wake();
      }
    });
    res.on("finish", () => {
      record.completed = true;
    });
    if (api === undefined)
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const params = (typeof body === "object" && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    // Gemini names the model and the streaming mode in the path, not the body.
    const playedParams = gemini
      ? {
          ...params,
          model: decodeURIComponent(gemini[1] ?? ""),
          stream: gemini[2] === "streamGenerateContent",
        }
      : params;
    const fallback = this.#fallback;
    const response =
      this.#queue.shift() ??
      (fallback ? scriptedResponseSchema.parse(fallback(params, api)) : undefined);
    if (response === undefined) {
      return sendJson(res, 500, {
        error: {
          type: "api_error",
          message: `fake server: call #${this.requests.length} has no scripted response; script one more`,
        },
      });
    }
    let played = response;
    if (this.#cache && (api === "openai" || api === "anthropic")) {
      try {
        const cached =
          api === "openai" ? this.#cache.openai(params) : this.#cache.anthropic(params);
        played = { ...response, usage: { ...DEFAULT_SCRIPT_USAGE, ...response.usage, ...cached } };
      } catch (error) {
        if (!(error instanceof FakeCacheRequestError)) throw error;
        return sendJson(res, 400, {
          type: "error",
          error: { type: "invalid_request_error", message: error.message },
        });
      }
    }
    await this.#play(api, playedParams, played, res);
  }

  async #play(
    api: FakeApi,
    params: Record<string, unknown>,
    response: ScriptedResponse,
    res: ServerResponse,
  ): Promise<void> {
    const model = typeof params.model === "string" ? params.model : "fake-model";
    const streaming = params.stream === true;
    const steps = planWire(response);
    const usage = { ...DEFAULT_SCRIPT_USAGE, ...response.usage };
    const includeUsage =
      (params.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    const encoder: WireEncoder =
      api === "openai"
        ? openaiEncoder(model, includeUsage)
        : api === "openai-responses"
          ? responsesEncoder(model, response.stopReason, response.error?.kind)
          : api === "google-gemini"
            ? geminiEncoder(model)
            : anthropicEncoder(model, this.#noise, usage);
    const faultOf = (beforeStream: boolean): WireFault => {
      const error = response.error;
      if (!error) throw new Error("fake server: fault step without a scripted error");
      const input = {
        kind: error.kind,
        message: scriptErrorMessage(error),
        retryAfterMs: error.retryAfterMs,
        status: error.status,
        beforeStream: beforeStream || !streaming,
      };
      if (api === "google-gemini") return geminiFault(input);
      return api === "anthropic" ? anthropicFault(input) : openaiFault(input);
    };
    const first = steps[0];
    // Without a stream (or before it opens) every fault is a whole-response fault.
    if (!streaming || first?.op === "fault") {
      const fault = steps.some((step) => step.op === "fault") ? faultOf(true) : undefined;
      if (fault?.type === "http") return sendJson(res, fault.status, fault.body, fault.headers);
      if (fault?.type === "cut") return void res.socket?.destroy();
      if (fault?.type === "stall") return; // hold the request open until the client leaves
      if (!streaming) {
        return fault?.type === "malformed"
          ? sendRaw(res, 200, "application/json", '{"id":"broken",')
          : sendJson(res, 200, encoder.complete(steps), jsonHeaders(api));
      }
    }
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...jsonHeaders(api),
    });
    res.flushHeaders();
    if (this.#keepAliveMs !== undefined) {
      const frame =
        api === "anthropic" ? encodeSseEvent('{"type": "ping"}', "ping") : ": keep-alive\n\n";
      const timer = setInterval(() => {
        if (!res.writableEnded && !res.destroyed) res.write(frame);
      }, this.#keepAliveMs);
      res.on("close", () => clearInterval(timer));
    }
    if (first?.op === "fault") {
      // Only `malformed` reaches here: a broken frame as the very first thing on the wire.
      res.end(encoder.malformed());
      return;
    }
    for (const frame of encoder.preamble()) res.write(frame);
    for (const step of steps) {
      if (res.destroyed) return;
      if (step.op === "delta" && response.delayMs > 0) await sleep(response.delayMs);
      if (res.destroyed) return;
      if (step.op === "fault") {
        this.#streamFault(res, faultOf(false), encoder);
        return;
      }
      for (const frame of encoder.encode(step as Exclude<WireStep, { op: "fault" }>))
        res.write(frame);
    }
    res.end();
  }

  #streamFault(res: ServerResponse, fault: WireFault, encoder: WireEncoder): void {
    if (fault.type === "cut") {
      // Let the written frames reach the client, then drop the connection without the
      // terminating chunk, as a reset or a dying proxy would.
      const socket = res.socket;
      setTimeout(() => socket?.destroy(), 5);
      return;
    }
    if (fault.type === "stall") return;
    if (fault.type === "malformed") {
      res.end(encoder.malformed());
      return;
    }
    res.end(encoder.streamError(fault.body));
  }
}

function jsonHeaders(api: FakeApi): Record<string, string> {
  return api === "anthropic" ? { "request-id": "req_fake" } : { "x-request-id": "req_fake" };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, status, "application/json", JSON.stringify(body), headers);
}

function sendRaw(
  res: ServerResponse,
  status: number,
  contentType: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": contentType, ...headers });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
