import type { ModelErrorKind } from "../../error-kind.js";
import type { WireEncoder } from "./wire-encoders.js";
import type { WireFault } from "./wire-errors.js";
import type { WireStep } from "./wire-plan.js";

type Finish = Extract<WireStep, { op: "finish" }>;
type JsonObject = Record<string, unknown>;

/** One `alt=sse` frame as the Gemini API sends it (`data: …` and a CRLF blank line). */
const frame = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;

function geminiUsage(u: Finish["usage"]): JsonObject {
  const thoughts = u.reasoning ?? 0;
  return {
    promptTokenCount: u.input + u.cacheRead,
    candidatesTokenCount: u.output - thoughts,
    totalTokenCount: u.input + u.cacheRead + u.output,
    ...(u.cacheRead > 0 ? { cachedContentTokenCount: u.cacheRead } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    promptTokensDetails: [{ modality: "TEXT", tokenCount: u.input + u.cacheRead }],
  };
}

const FINISH: Readonly<Record<string, string>> = {
  stop: "STOP",
  tool_use: "STOP",
  length: "MAX_TOKENS",
  content_filter: "SAFETY",
  refusal: "SAFETY",
  pause_turn: "STOP",
};

/**
 * Encodes Gemini `streamGenerateContent?alt=sse` chunks: each a `GenerateContentResponse`
 * with one candidate whose `content.parts` hold the delta (`thought: true` for thinking;
 * a thinking block's scripted signature comes as a `thoughtSignature` on an empty thought
 * part when it closes), function calls as whole `functionCall` parts when their block
 * closes (the wire has no argument fragments), and a last chunk with `finishReason` and
 * `usageMetadata`.
 */
export function geminiEncoder(model: string): WireEncoder {
  const chunk = (parts: JsonObject[], extra: JsonObject = {}) =>
    frame({
      candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }],
      modelVersion: model,
      responseId: "fake-gemini-response",
    });
  const args = new Map<number, string>();
  return {
    preamble: () => [],
    encode(step) {
      if (step.op === "open") {
        if (step.block.type === "toolCall") args.set(step.index, "");
        return [];
      }
      if (step.op === "delta") {
        if (step.block.type === "text") return [chunk([{ text: step.text }])];
        if (step.block.type === "thinking") return [chunk([{ text: step.text, thought: true }])];
        args.set(step.index, (args.get(step.index) ?? "") + step.text);
        return [];
      }
      if (step.op === "close") {
        if (step.block.type === "thinking" && step.block.signature) {
          return [chunk([{ text: "", thought: true, thoughtSignature: step.block.signature }])];
        }
        if (step.block.type !== "toolCall") return [];
        const text = args.get(step.index) ?? "";
        const call: JsonObject = {
          name: step.block.name,
          args: text === "" ? {} : JSON.parse(text),
        };
        if (step.block.id !== undefined) call.id = step.block.id;
        return [chunk([{ functionCall: call }])];
      }
      return [
        frame({
          candidates: [
            {
              content: { parts: [{ text: "" }], role: "model" },
              finishReason: FINISH[step.stopReason] ?? "STOP",
              index: 0,
            },
          ],
          usageMetadata: geminiUsage(step.usage),
          modelVersion: model,
          responseId: "fake-gemini-response",
        }),
      ];
    },
    malformed: () => 'data: {"candidates": [{"content": {"parts": [{"text": \r\n\r\n',
    streamError: (body) => frame(body),
    complete(steps) {
      const parts: JsonObject[] = [];
      let finish: Finish | undefined;
      for (const step of steps) {
        if (step.op === "finish") finish = step;
        if (step.op !== "delta") continue;
        if (step.block.type === "toolCall") continue;
        parts.push({
          text: step.text,
          ...(step.block.type === "thinking" ? { thought: true } : {}),
        });
      }
      return {
        candidates: [
          {
            content: { parts, role: "model" },
            finishReason: FINISH[finish?.stopReason ?? "stop"],
            index: 0,
          },
        ],
        ...(finish ? { usageMetadata: geminiUsage(finish.usage) } : {}),
        modelVersion: model,
      };
    },
  };
}

interface FaultInput {
  kind: ModelErrorKind;
  message: string;
  retryAfterMs: number | undefined;
  status?: number | undefined;
  beforeStream: boolean;
}

const GEMINI_ERRORS: Record<string, { code: number; status: string; text: string }> = {
  rate_limit: {
    code: 429,
    status: "RESOURCE_EXHAUSTED",
    text: "Resource has been exhausted (e.g. check quota).",
  },
  auth_error: {
    code: 400,
    status: "INVALID_ARGUMENT",
    text: "API key not valid. Please pass a valid API key.",
  },
  quota_exceeded: {
    code: 429,
    status: "RESOURCE_EXHAUSTED",
    text: "You exceeded your current quota, please check your plan and billing details.",
  },
  model_error: {
    code: 503,
    status: "UNAVAILABLE",
    text: "The model is overloaded. Please try again later.",
  },
  context_overflow: {
    code: 400,
    status: "INVALID_ARGUMENT",
    text: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
  },
};

/** Encodes a scripted failure the way the Gemini API reports it (a google.rpc.Status body). */
export function geminiFault(input: FaultInput): WireFault {
  if (input.kind === "network_error") return { type: "cut" };
  if (input.kind === "timeout" || input.kind === "aborted") return { type: "stall" };
  if (input.kind === "invalid_response") return { type: "malformed" };
  const spec = GEMINI_ERRORS[input.kind] ?? GEMINI_ERRORS.model_error;
  if (!spec) throw new Error(`no Gemini error for ${input.kind}`);
  const details: JsonObject[] = [];
  if (input.kind === "auth_error") {
    details.push({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "API_KEY_INVALID",
      domain: "googleapis.com",
      metadata: { service: "generativelanguage.googleapis.com" },
    });
  }
  if (input.kind === "quota_exceeded" || input.kind === "rate_limit") {
    const daily = input.kind === "quota_exceeded";
    details.push({
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [
        {
          quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
          quotaId: daily
            ? "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
            : "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
          quotaDimensions: { location: "global", model: "gemini-2.5-flash" },
          quotaValue: daily ? "250" : "10",
        },
      ],
    });
  }
  if (input.kind === "rate_limit" && input.retryAfterMs !== undefined) {
    details.push({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: `${input.retryAfterMs / 1000}s`,
    });
  }
  const error = {
    code: input.status ?? spec.code,
    message: `${spec.text} ${input.message}`,
    status: spec.status,
    ...(details.length > 0 ? { details } : {}),
  };
  if (!input.beforeStream) return { type: "stream_error", body: { error } };
  return { type: "http", status: input.status ?? spec.code, body: { error }, headers: {} };
}
