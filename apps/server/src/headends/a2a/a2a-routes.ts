import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { JsonRpcTransportHandler, ServerCallContext } from "@a2a-js/sdk/server";
import { Hono, type MiddlewareHandler } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppDeps } from "../../app-deps.js";
import { jsonBodyCheck, rateLimit } from "../../http/request-limits.js";
import { sendEachWrite } from "../../http/send-each-write.js";
import type { ServerEnv } from "../../http/server-env.js";
import type { StreamCounter } from "../../http/stream-counter.js";
import { agentCardJson, agentCardOf } from "./agent-card.js";
import { RunTaskHandler } from "./run-task-handler.js";

/** The origin clients reached the server at. */
function originOf(url: string): string {
  return new URL(url).origin;
}

/** A JSON-RPC error object as a response (A2A's error shape). */
function rpcError(id: unknown, code: number, message: string, status = 200): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: { code, message } }),
    { status, headers: { "content-type": "application/json" } },
  );
}

/** The agent card at `/.well-known/agent-card.json` (public: it names the agents, not sessions). */
export function agentCardRoutes(deps: AppDeps) {
  return new Hono<ServerEnv>().get("/agent-card.json", (c) =>
    c.json(agentCardJson(agentCardOf(deps, originOf(c.req.url))) as Record<string, unknown>),
  );
}

/**
 * A2A JSON-RPC at `/a2a`, behind the tenant key check, body check and rate limit: the v1.0
 * methods (`SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, `SubscribeToTask`)
 * and the v0.3 ones (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`,
 * `tasks/resubscribe`), both parsed and answered by `@a2a-js/sdk`'s transport handlers.
 */
export function a2aRoutes(
  deps: AppDeps,
  auth: MiddlewareHandler<ServerEnv>,
  streams: StreamCounter,
) {
  return new Hono<ServerEnv>()
    .use("*", auth)
    .use("*", jsonBodyCheck(deps.limits))
    .use("*", rateLimit(deps.limits))
    .post("/", async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return rpcError(null, -32700, "the body is not valid JSON");
      }
      const method = (body as { method?: unknown } | null)?.method;
      const id = (body as { id?: unknown } | null)?.id;
      const card = agentCardOf(deps, originOf(c.req.url));
      const handler = new RunTaskHandler(
        deps,
        c.get("owner").tenantId,
        card,
        deps.agents.keys().next().value,
      );
      const legacy = typeof method === "string" && method.includes("/");
      const context = new ServerCallContext({ requestedVersion: legacy ? "0.3" : "1.0" });
      const transport = legacy
        ? new LegacyJsonRpcTransportHandler(handler)
        : new JsonRpcTransportHandler(handler);
      const mapError = legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
        : JsonRpcTransportHandler.mapToJSONRPCError;
      let answer: Awaited<ReturnType<typeof transport.handle>>;
      try {
        answer = await transport.handle(body as Record<string, unknown>, context);
      } catch (error) {
        const mapped = mapError(error);
        return rpcError(id, mapped.code, mapped.message);
      }
      if (!(Symbol.asyncIterator in (answer as object))) return c.json(answer as object);
      const stream = answer as AsyncGenerator<unknown>;
      // A stream counts against the key's stream limit, as the native run streams do.
      const keyId = c.get("owner").keyId;
      if (!streams.acquire(keyId)) {
        await stream.return(undefined);
        return rpcError(
          id,
          -32000,
          `this key already holds ${streams.count(keyId)} event streams; close one first`,
          429,
        );
      }
      const writeThrough = sendEachWrite(c);
      return streamSSE(c, async (sse) => {
        sse.onAbort(() => void stream.return(undefined));
        try {
          for await (const event of stream) await sse.writeSSE({ data: JSON.stringify(event) });
        } catch (error) {
          const mapped = mapError(error);
          await sse.writeSSE({
            event: "error",
            data: JSON.stringify({ jsonrpc: "2.0", id: id ?? null, error: mapped }),
          });
        } finally {
          writeThrough.restore();
          streams.release(keyId);
        }
      });
    });
}
