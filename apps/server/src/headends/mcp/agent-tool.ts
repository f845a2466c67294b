import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AppDeps } from "../../app-deps.js";
import { toApiError } from "../../errors/index.js";
import type { UiAnswer } from "../../extensions/ui-answer.js";
import { RunFollower, startHeadendRun, type UiRequestEvent } from "../headend-run.js";

/** What an agent's tool takes. */
export const agentToolInput = {
  prompt: z.string().min(1).max(1_000_000).describe("What to ask the agent"),
  session: z
    .string()
    .max(200)
    .optional()
    .describe("An Arbor session to continue (a new session when absent)"),
  entry: z
    .string()
    .max(200)
    .optional()
    .describe("An entry of the session to answer after (a new branch) instead of its leaf"),
};

/** What an agent's tool answers beside its text. */
export const agentToolOutput = {
  text: z.string().describe("The agent's answer"),
  session: z.string().describe("The session the answer is stored in"),
  leaf: z.string().nullable().describe("The answer's entry (pass as `entry` to branch from it)"),
};

/** A new empty session of the tenant. */
async function newSession(deps: AppDeps, tenantId: string): Promise<string> {
  const session = await deps.store.create({ cwd: "/", tenant: tenantId });
  await session.close();
  return session.id;
}

/** The tool's failure result (the protocol's error shape for a tool: `isError`). */
function failed(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

/** The elicitation asking an extension's question, or undefined for none it can ask. */
export function elicitationOf(request: UiRequestEvent): ElicitRequest["params"] {
  const title = request.title.slice(0, 500);
  const value =
    request.kind === "confirm"
      ? { type: "boolean" as const, title, description: request.message ?? title }
      : request.kind === "select"
        ? { type: "string" as const, title, enum: request.options ?? [] }
        : { type: "string" as const, title, description: request.placeholder ?? title };
  return {
    message: `${request.extensionName}: ${request.message ?? title}`,
    requestedSchema: { type: "object", properties: { value }, required: ["value"] },
  };
}

/** The UI answer an elicitation's result gives (declined or cancelled: dismissed). */
export function uiAnswerOf(
  request: UiRequestEvent,
  result: { action: string; content?: Record<string, unknown> | undefined },
): UiAnswer {
  const value = result.content?.value;
  if (result.action !== "accept") return { kind: "dismiss" };
  if (request.kind === "confirm") return { kind: "confirm", value: value === true };
  if (typeof value !== "string") return { kind: "dismiss" };
  return { kind: request.kind, value };
}

/**
 * Offers each agent as a tool: `{ prompt, session?, entry? }` in, the answer's text out with
 * `{ text, session, leaf }` as structured content. Progress notifications follow the run
 * when the client sent a progress token; cancelling the call aborts the run; an extension's
 * question becomes an elicitation when the client can answer one (otherwise it waits for the
 * extension's default, as on the native API).
 */
export function registerAgentTools(server: McpServer, deps: AppDeps, tenantId: string): void {
  for (const [name, agent] of deps.agents) {
    const description =
      ("description" in agent && typeof agent.description === "string" && agent.description) ||
      `Ask the Arbor agent "${name}"; its answer is stored in an Arbor session`;
    server.registerTool(
      name,
      { description, inputSchema: agentToolInput, outputSchema: agentToolOutput },
      async (args, extra) => {
        let follower: RunFollower;
        try {
          const sessionId = args.session ?? (await newSession(deps, tenantId));
          const record = await startHeadendRun(deps, {
            tenantId,
            sessionId,
            agent: name,
            prompt: args.prompt,
            ...(args.entry !== undefined ? { fromEntry: args.entry } : {}),
          });
          follower = new RunFollower(deps, record.id, sessionId);
        } catch (error) {
          const failure = toApiError(error);
          return failed(`${failure.status} ${failure.code}: ${failure.message}`);
        }
        const abort = () => void deps.runs.abort(follower.runId, tenantId).catch(() => undefined);
        extra.signal.addEventListener("abort", abort, { once: true });
        const token = extra._meta?.progressToken;
        const canElicit = server.server.getClientCapabilities()?.elicitation !== undefined;
        let progress = 0;
        try {
          for await (const piece of follower.follow(extra.signal)) {
            if (piece.kind === "end") {
              const { end } = piece;
              if (!end.ok) return failed(`the agent did not answer: ${end.failure?.message}`);
              const structured = {
                text: end.text,
                session: follower.sessionId,
                leaf: end.leaf ?? null,
              };
              return { content: [{ type: "text", text: end.text }], structuredContent: structured };
            }
            if (piece.kind === "ui_request") {
              if (canElicit) await askClient(deps, tenantId, follower.runId, piece.request, extra);
              continue;
            }
            if (token !== undefined) {
              await extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken: token, progress: ++progress, message: piece.delta },
              });
            }
          }
          return failed("the call was cancelled");
        } finally {
          extra.signal.removeEventListener("abort", abort);
        }
      },
    );
  }
}

/** Asks the client an extension's question as an elicitation and answers the run with it. */
async function askClient(
  deps: AppDeps,
  tenantId: string,
  runId: string,
  request: UiRequestEvent,
  extra: {
    sendRequest: (
      request: ElicitRequest,
      schema: typeof ElicitResultSchema,
      options?: { signal?: AbortSignal },
    ) => Promise<z.infer<typeof ElicitResultSchema>>;
    signal: AbortSignal;
  },
): Promise<void> {
  try {
    const result = await extra.sendRequest(
      { method: "elicitation/create", params: elicitationOf(request) },
      ElicitResultSchema,
      { signal: extra.signal },
    );
    await deps.runs.answerUi?.(runId, request.requestId, uiAnswerOf(request, result), tenantId);
  } catch {
    // The question timed out or was answered meanwhile, or the client could not ask: the
    // extension gets its default, as on the native API.
  }
}
