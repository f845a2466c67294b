import { SessionNotFoundError } from "@arbor/session-store";
import type { Context } from "hono";
import type { AppDeps } from "../../app-deps.js";
import { ApiError } from "../../errors/index.js";
import type { ServerEnv } from "../../http/server-env.js";
import type { StreamCounter } from "../../http/stream-counter.js";
import { isTerminal, type RunRecord } from "../../runs/run-record.js";
import { type HeadendRunEnd, RunFollower, startHeadendRun } from "../headend-run.js";
import { headendStream, takeStreamPlace } from "../headend-stream.js";
import { discardAfterRun } from "../run-end.js";
import { runFailed, SESSION_HEADER } from "./chat-completions.js";
import { modelNotFound, OpenAiParamError } from "./openai-errors.js";
import {
  parseOpenAiBody,
  type ResponseRequest,
  responseRequestSchema,
  textOf,
} from "./openai-requests.js";
import { type SeedMessage, seedSession, splitPrompt } from "./session-seed.js";

const RESPONSE_ID = /^resp_([a-f0-9]{24})$/;

/** A response's id: the run's, so a response is found (and checked) as its run is. */
function responseIdOf(runId: string): string {
  return `resp_${runId.slice("run_".length)}`;
}

/** The run a response id names, or a 404 in OpenAI's words. */
function runIdOf(responseId: string): string {
  const match = RESPONSE_ID.exec(responseId);
  if (!match) throw responseNotFound(responseId);
  return `run_${match[1]}`;
}

function responseNotFound(id: string): ApiError {
  return new ApiError(404, "response_not_found", `no response "${id.slice(0, 200)}"`);
}

/** Where a stored response's answer sits in the tree: its session and entry. */
async function placeOf(deps: AppDeps, tenantId: string, responseId: string) {
  let record: RunRecord;
  try {
    record = await deps.runs.get(runIdOf(responseId), tenantId);
  } catch (error) {
    if (ApiError.isInstance(error) && error.status === 404) throw responseNotFound(responseId);
    throw error;
  }
  const report = (record.result as { finalReport?: { entryId?: string } } | undefined)?.finalReport;
  return { record, sessionId: record.sessionId, entryId: report?.entryId };
}

/** OpenAI's usage object of a response. */
function responseUsage(usage: HeadendRunEnd["usage"]) {
  const input = usage.input + usage.cacheRead + usage.cacheWrite;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + usage.output,
  };
}

interface ResponseFields {
  runId: string;
  created: number;
  model: string;
  status: "in_progress" | "completed" | "failed" | "cancelled" | "incomplete";
  text?: string;
  usage?: HeadendRunEnd["usage"];
  previous: string | null;
  store: boolean;
  error?: { code: string; message: string };
}

/** The message item of a response. */
function messageItem(runId: string, text: string, status: "in_progress" | "completed") {
  return {
    type: "message",
    id: `msg_${runId.slice("run_".length)}`,
    status,
    role: "assistant",
    content: status === "completed" ? [outputText(text)] : [],
  };
}

function outputText(text: string) {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

/** A response object (the Open Responses shape). */
function responseObject(fields: ResponseFields) {
  return {
    id: responseIdOf(fields.runId),
    object: "response",
    created_at: fields.created,
    status: fields.status,
    error: fields.error ?? null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    model: fields.model,
    output: fields.text !== undefined ? [messageItem(fields.runId, fields.text, "completed")] : [],
    parallel_tool_calls: false,
    previous_response_id: fields.previous,
    reasoning: { effort: null, summary: null },
    store: fields.store,
    temperature: null,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: fields.usage ? responseUsage(fields.usage) : null,
    metadata: {},
  };
}

/** The client's input as messages (a string is one user message). */
function inputMessages(body: ResponseRequest): SeedMessage[] {
  const messages: SeedMessage[] =
    typeof body.input === "string"
      ? [{ role: "user", text: body.input }]
      : body.input.map((item, index) => ({
          role: item.role === "developer" ? "system" : item.role,
          text: textOf(item.content, `input.${index}.content`),
        }));
  return messages;
}

/** Where a new response runs: a session, and the entry it answers after. */
interface Placement {
  sessionId: string;
  fromEntry?: string;
  /** Deleted once the run ended (`store: false`). */
  throwaway: boolean;
}

async function placeResponse(
  deps: AppDeps,
  tenantId: string,
  body: ResponseRequest,
  history: SeedMessage[],
): Promise<Placement> {
  const store = body.store !== false;
  const previous = body.previous_response_id ?? undefined;
  if (previous === undefined) {
    const seed: SeedMessage[] = [
      ...(body.instructions ? [{ role: "system" as const, text: body.instructions }] : []),
      ...history,
    ];
    return { sessionId: await seedSession(deps, tenantId, seed), throwaway: !store };
  }
  const place = await placeOf(deps, tenantId, previous);
  if (place.entryId === undefined) {
    throw new OpenAiParamError(
      "previous_response_id",
      `response "${previous}" has no answer to continue from (${place.record.status})`,
    );
  }
  if (store) return { sessionId: place.sessionId, fromEntry: place.entryId, throwaway: false };
  // Not stored: the answer goes to a copy of the path, deleted once the run ended.
  const fork = await deps.store.fork(place.sessionId, place.entryId, { tenant: tenantId });
  await fork.close();
  return { sessionId: fork.id, throwaway: true };
}

/**
 * `POST /v1/responses`: runs the agent named by `model`. `previous_response_id` names an
 * answer of the tree: the new answer is its child, so two requests with the same previous id
 * make two branches. `store: false` runs in a copy deleted once the run ended.
 */
export async function createResponse(
  c: Context<ServerEnv>,
  deps: AppDeps,
  streams: StreamCounter,
): Promise<Response> {
  const body = parseOpenAiBody(responseRequestSchema, await c.req.json());
  const owner = c.get("owner");
  if (!deps.agents.has(body.model)) throw modelNotFound(body.model);
  const { history, prompt } = splitPrompt(inputMessages(body), "input");
  const streaming = body.stream === true;
  if (streaming) takeStreamPlace(streams, owner.keyId);
  let follower: RunFollower;
  let record: RunRecord;
  let placement: Placement | undefined;
  try {
    placement = await placeResponse(deps, owner.tenantId, body, history);
    record = await startHeadendRun(deps, {
      tenantId: owner.tenantId,
      sessionId: placement.sessionId,
      agent: body.model,
      prompt,
      ...(placement.fromEntry !== undefined ? { fromEntry: placement.fromEntry } : {}),
    });
    follower = new RunFollower(deps, record.id, placement.sessionId);
  } catch (error) {
    if (streaming) streams.release(owner.keyId);
    if (placement?.throwaway)
      await deps.store.delete(placement.sessionId, { tenant: owner.tenantId }).catch(() => {});
    throw error;
  }
  if (placement.throwaway) {
    void discardAfterRun(deps, record.id, placement.sessionId, owner.tenantId);
  } else {
    c.header(SESSION_HEADER, placement.sessionId);
  }
  const base = {
    runId: record.id,
    created: Math.floor(Date.parse(record.createdAt) / 1000),
    model: body.model,
    previous: body.previous_response_id ?? null,
    store: !placement.throwaway,
  };
  const finished = (end: HeadendRunEnd) =>
    responseObject({
      ...base,
      status: end.ok ? "completed" : "failed",
      ...(end.ok ? { text: end.text } : { error: runFailed(end) }),
      usage: end.usage,
    });
  if (!streaming) {
    const end = await follower.result(c.req.raw.signal);
    if (!end) throw new ApiError(408, "client_closed", "the request ended before the run");
    if (!end.ok) throw runFailed(end);
    return c.json(finished(end));
  }
  return headendStream(c, streams, async (stream, signal) => {
    let sequence = 0;
    const send = (type: string, fields: Record<string, unknown>) =>
      stream.writeSSE({
        event: type,
        data: JSON.stringify({ type, sequence_number: sequence++, ...fields }),
      });
    const item = messageItem(record.id, "", "in_progress");
    const at = { item_id: item.id, output_index: 0, content_index: 0 };
    const started = responseObject({ ...base, status: "in_progress" });
    await send("response.created", { response: started });
    await send("response.in_progress", { response: started });
    await send("response.output_item.added", { output_index: 0, item });
    await send("response.content_part.added", { ...at, part: outputText("") });
    for await (const piece of follower.follow(signal)) {
      if (piece.kind === "text") {
        await send("response.output_text.delta", { ...at, delta: piece.delta, logprobs: [] });
      } else if (piece.kind === "end") {
        const { end } = piece;
        if (!end.ok) {
          await send("response.failed", { response: finished(end) });
          return;
        }
        await send("response.output_text.done", { ...at, text: end.text, logprobs: [] });
        await send("response.content_part.done", { ...at, part: outputText(end.text) });
        await send("response.output_item.done", {
          output_index: 0,
          item: messageItem(record.id, end.text, "completed"),
        });
        await send("response.completed", { response: finished(end) });
      }
    }
  });
}

/** The text of a stored answer entry. */
function entryText(entry: unknown): string {
  const content = (entry as { message?: { content?: unknown } } | undefined)?.message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block): block is { type: "text"; text: string } => block?.type === "text")
    .map((block) => block.text)
    .join("");
}

/**
 * `GET /v1/responses/:id`: the response as the tree holds it (its run's record and its answer
 * entry); a response not stored, or another tenant's, is 404.
 */
export async function getResponse(c: Context<ServerEnv>, deps: AppDeps): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const owner = c.get("owner");
  const { record, sessionId, entryId } = await placeOf(deps, owner.tenantId, id);
  const result = record.result as { usage?: HeadendRunEnd["usage"] } | undefined;
  const base = {
    runId: record.id,
    created: Math.floor(Date.parse(record.createdAt) / 1000),
    model: record.agent,
    previous: null,
    store: true,
  };
  if (!isTerminal(record.status)) return c.json(responseObject({ ...base, status: "in_progress" }));
  let text: string | undefined;
  try {
    const session = await deps.store.open(sessionId, { readOnly: true, tenant: owner.tenantId });
    try {
      text = entryId !== undefined ? entryText(session.getEntry(entryId)) : undefined;
    } finally {
      await session.close();
    }
  } catch (error) {
    if (SessionNotFoundError.isInstance(error)) throw responseNotFound(id);
    throw error;
  }
  c.header(SESSION_HEADER, sessionId);
  return c.json(
    responseObject({
      ...base,
      status: record.status === "completed" ? "completed" : "failed",
      ...(text !== undefined ? { text } : {}),
      ...(result?.usage ? { usage: result.usage } : {}),
      ...(record.status !== "completed"
        ? { error: record.error ?? { code: record.status, message: `the run ${record.status}` } }
        : {}),
    }),
  );
}
