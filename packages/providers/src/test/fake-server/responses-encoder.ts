import type { StopReason } from "../../spec/events.js";
import { encodeSseEvent } from "./sse.js";
import type { WireEncoder } from "./wire-encoders.js";
import type { WireStep } from "./wire-plan.js";

type Finish = Extract<WireStep, { op: "finish" }>;
type JsonObject = Record<string, unknown>;

/** The usage object of a Responses `response.completed` event. */
function responsesUsage(u: Finish["usage"]): JsonObject {
  return {
    input_tokens: u.input + u.cacheRead + u.cacheWrite,
    input_tokens_details: { cached_tokens: u.cacheRead, cache_write_tokens: u.cacheWrite },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
    total_tokens: u.input + u.cacheRead + u.cacheWrite + u.output,
  };
}

/**
 * Encodes the OpenAI Responses API stream (`POST /v1/responses` with `stream: true`):
 * every frame an `event:` line naming its type and a `data:` line whose JSON carries the
 * same `type` and a `sequence_number` counting from 0. Text is a `message` item with an
 * `output_text` part (`refusal` parts when the script's stop reason is `refusal`),
 * thinking a `reasoning` item whose summary streams as `response.reasoning_summary_text.delta`
 * and whose scripted `signature` comes back as `encrypted_content`, tool calls
 * `function_call` items (`fc_…` ids, the script's id as `call_id`). The stream ends with
 * `response.completed`, or `response.incomplete` for the `length` and `content_filter`
 * stop reasons. Mid-stream failures are `error` events, and `response.failed` for `model_error`.
 */
export function responsesEncoder(
  model: string,
  stopReason: StopReason | undefined,
  faultKind: string | undefined,
): WireEncoder {
  let sequence = 0;
  const created = Math.floor(Date.now() / 1000);
  const id = "resp_fake";
  const refusal = stopReason === "refusal";
  const output: JsonObject[] = [];
  const frame = (type: string, fields: JsonObject) =>
    encodeSseEvent(JSON.stringify({ type, ...fields, sequence_number: sequence++ }), type);
  const response = (status: string, extra: JsonObject = {}) => ({
    id,
    object: "response",
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    instructions: null,
    model,
    output: status === "in_progress" ? [] : output,
    parallel_tool_calls: true,
    store: false,
    tool_choice: "auto",
    tools: [],
    usage: null,
    ...extra,
  });
  /** The item being streamed, with its text so far. */
  let open: { item: JsonObject; outputIndex: number; text: string } | undefined;
  const itemOf = (step: Extract<WireStep, { op: "open" }>): JsonObject => {
    const n = output.length;
    if (step.block.type === "text") {
      return {
        id: `msg_fake_${n}`,
        type: "message",
        status: "in_progress",
        role: "assistant",
        content: [],
      };
    }
    if (step.block.type === "thinking")
      return { id: `rs_fake_${n}`, type: "reasoning", summary: [] };
    return {
      id: `fc_fake_${n}`,
      type: "function_call",
      status: "in_progress",
      arguments: "",
      call_id: step.id,
      name: step.block.name,
    };
  };
  const emptyPart = () =>
    refusal ? { type: "refusal", refusal: "" } : { type: "output_text", annotations: [], text: "" };
  const fullPart = (text: string) =>
    refusal ? { type: "refusal", refusal: text } : { type: "output_text", annotations: [], text };
  return {
    preamble: () => [
      frame("response.created", { response: response("in_progress") }),
      frame("response.in_progress", { response: response("in_progress") }),
    ],
    encode(step) {
      if (step.op === "open") {
        const item = itemOf(step);
        open = { item, outputIndex: output.length, text: "" };
        const frames = [
          frame("response.output_item.added", { output_index: open.outputIndex, item }),
        ];
        const base = { item_id: item.id, output_index: open.outputIndex };
        if (step.block.type === "text") {
          frames.push(
            frame("response.content_part.added", { ...base, content_index: 0, part: emptyPart() }),
          );
        } else if (step.block.type === "thinking") {
          frames.push(
            frame("response.reasoning_summary_part.added", {
              ...base,
              summary_index: 0,
              part: { type: "summary_text", text: "" },
            }),
          );
        }
        return frames;
      }
      if (step.op === "finish") {
        const usage = responsesUsage(step.usage);
        if (step.stopReason === "length" || step.stopReason === "content_filter") {
          const reason = step.stopReason === "length" ? "max_output_tokens" : "content_filter";
          return [
            frame("response.incomplete", {
              response: response("incomplete", { incomplete_details: { reason }, usage }),
            }),
          ];
        }
        return [frame("response.completed", { response: response("completed", { usage }) })];
      }
      if (open === undefined) return [];
      const base = { item_id: open.item.id, output_index: open.outputIndex };
      if (step.op === "delta") {
        open.text += step.text;
        if (step.block.type === "text") {
          return [
            refusal
              ? frame("response.refusal.delta", { ...base, content_index: 0, delta: step.text })
              : frame("response.output_text.delta", {
                  ...base,
                  content_index: 0,
                  delta: step.text,
                  logprobs: [],
                }),
          ];
        }
        if (step.block.type === "thinking") {
          return [
            frame("response.reasoning_summary_text.delta", {
              ...base,
              summary_index: 0,
              delta: step.text,
            }),
          ];
        }
        return [frame("response.function_call_arguments.delta", { ...base, delta: step.text })];
      }
      if (step.op === "close") {
        const { item, text } = open;
        const frames: string[] = [];
        let done: JsonObject;
        if (step.block.type === "text") {
          frames.push(
            refusal
              ? frame("response.refusal.done", { ...base, content_index: 0, refusal: text })
              : frame("response.output_text.done", {
                  ...base,
                  content_index: 0,
                  text,
                  logprobs: [],
                }),
            frame(`response.content_part.done`, {
              ...base,
              content_index: 0,
              part: fullPart(text),
            }),
          );
          done = { ...item, status: "completed", content: [fullPart(text)] };
        } else if (step.block.type === "thinking") {
          const summary = text === "" ? [] : [{ type: "summary_text", text }];
          frames.push(
            frame("response.reasoning_summary_text.done", { ...base, summary_index: 0, text }),
            frame("response.reasoning_summary_part.done", {
              ...base,
              summary_index: 0,
              part: { type: "summary_text", text },
            }),
          );
          done = {
            ...item,
            summary,
            ...(step.block.signature === undefined
              ? {}
              : { encrypted_content: step.block.signature }),
          };
        } else {
          frames.push(frame("response.function_call_arguments.done", { ...base, arguments: text }));
          done = { ...item, status: "completed", arguments: text };
        }
        output.push(done);
        frames.push(
          frame("response.output_item.done", { output_index: open.outputIndex, item: done }),
        );
        open = undefined;
        return frames;
      }
      return [];
    },
    malformed: () =>
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":\n\n',
    streamError(body) {
      const error = ((body as { error?: JsonObject }).error ?? {}) as JsonObject;
      const code =
        typeof error.code === "string" ? error.code : String(error.type ?? "server_error");
      const message = String(error.message ?? "error");
      if (faultKind === "model_error") {
        return frame("response.failed", {
          response: response("failed", { error: { code: "server_error", message } }),
        });
      }
      return frame("error", { code, message, param: null });
    },
    complete(steps) {
      for (const step of steps) if (step.op !== "fault") this.encode(step);
      const finish = steps.find((step): step is Finish => step.op === "finish");
      return response("completed", finish ? { usage: responsesUsage(finish.usage) } : {});
    },
  };
}
