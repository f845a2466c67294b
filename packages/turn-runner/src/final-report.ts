import type { ToolDefinition } from "@arbor/providers";
import { z } from "zod";
import {
  type AgentFailureReason,
  type FinalReport,
  InvalidAgentOptionsError,
} from "./contracts/index.js";

/** The name of the built-in tool through which the model delivers its final report. */
export const FINAL_REPORT_TOOL_NAME = "final_report";

/** A JSON schema, as a plain object (the draft 2020-12 subset zod understands). */
export type JsonSchemaObject = Record<string, unknown>;

/** The shape of a final report: a zod schema, or a JSON schema object. */
export type OutputSchema<T = unknown> = z.ZodType<T> | JsonSchemaObject;

export type { FinalReport };

const FAILURE_MESSAGES: Record<AgentFailureReason, string> = {
  aborted: "The run was aborted before a final answer.",
  shutdown: "The agent was shut down before a final answer.",
  max_turns: "The turn limit was reached before a final answer.",
  retries_exhausted: "Every retry of the model call failed.",
  no_targets: "No model target was left to ask.",
  context_overflow: "The conversation no longer fits the model's context window.",
  empty_answer: "The model kept giving empty answers.",
  truncated_answer: "The model's answers kept being cut off at the output limit.",
  final_report_missing: "The model never delivered the final report.",
  final_report_invalid: "The model's final reports did not match the output schema.",
  tool_calls_in_final_turn: "The model kept calling tools in its final turn.",
  refused: "The model refused to answer.",
  final_meta_missing:
    "The model never delivered the metadata extensions require beside the final report.",
};

/** The failure report of a run that ended without a valid final report. */
export function failedReport(
  reason: AgentFailureReason,
  message?: string,
): Extract<FinalReport, { status: "failed" }> {
  return { status: "failed", reason, message: message ?? FAILURE_MESSAGES[reason] };
}

/** A report read from an answer: valid (maybe after one trivial repair) or not. */
export type ReportReading<T> =
  | { ok: true; value: T; repaired: boolean }
  | { ok: false; issues: string[] };

const MAX_ISSUES = 3;

function isZodSchema(schema: OutputSchema): schema is z.ZodType {
  return (
    typeof schema === "object" &&
    schema !== null &&
    "_zod" in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === "function"
  );
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** Strips one Markdown code fence around a text, if the whole text is fenced. */
function unfence(text: string): string {
  const fenced = /^```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?```$/u.exec(text.trim());
  return (fenced?.[1] ?? text).trim();
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(unfence(text)) };
  } catch {
    return { ok: false };
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * What a run with an output schema expects of its final report: the tool definition sent
 * to the model, validation, and the single trivial repair (JSON inside a string, a code
 * fence, the report not wrapped in `report`, or wrapped once more in a single-key object).
 */
export class ReportContract<T = unknown> {
  readonly toolName = FINAL_REPORT_TOOL_NAME;
  /** The final-report tool as sent to the model: `{ report: <schema> }`. */
  readonly definition: ToolDefinition;
  private readonly validator: z.ZodType<T>;

  /** @throws InvalidAgentOptionsError when a JSON schema cannot be turned into a validator */
  constructor(schema: OutputSchema<T>) {
    let reportJson: Record<string, unknown>;
    if (isZodSchema(schema)) {
      this.validator = schema as z.ZodType<T>;
      reportJson = withoutDialect(z.toJSONSchema(schema, { io: "input" }) as JsonSchemaObject);
    } else {
      try {
        this.validator = z.fromJSONSchema(schema) as z.ZodType<T>;
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new InvalidAgentOptionsError(
          "outputSchema",
          `outputSchema is not a JSON schema Arbor can validate: ${detail}`,
        );
      }
      reportJson = withoutDialect(schema);
    }
    this.definition = {
      name: FINAL_REPORT_TOOL_NAME,
      description:
        "Delivers the final report of this task and ends it. Call it once, when you are done, " +
        "with the whole report as `report`.",
      parameters: {
        type: "object",
        properties: { report: reportJson },
        required: ["report"],
        additionalProperties: false,
      },
    };
  }

  /** Validates a report as it is. */
  validate(value: unknown): ReportReading<T> {
    const parsed = this.validator.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data, repaired: false };
    return {
      ok: false,
      issues: parsed.error.issues.slice(0, MAX_ISSUES).map((issue) => {
        const path = issue.path.map(String).join(".");
        return path ? `report.${path}: ${issue.message}` : `report: ${issue.message}`;
      }),
    };
  }

  /** Reads the report from the arguments of a final-report call, repairing it once if needed. */
  fromToolCall(args: Record<string, unknown>): ReportReading<T> {
    const wrapped = "report" in args;
    const candidate = wrapped ? args.report : args;
    const direct = this.validate(candidate);
    if (direct.ok) return wrapped ? direct : { ...direct, repaired: true };
    const repaired = this.repair(candidate);
    return repaired ?? direct;
  }

  /** Reads a report the model wrote as text (JSON, maybe fenced) instead of calling the tool. */
  fromText(text: string): ReportReading<T> | undefined {
    const json = parseJson(text);
    if (!json.ok) return undefined;
    const reading = isPlainObject(json.value)
      ? this.fromToolCall(json.value)
      : this.validate(json.value);
    return reading.ok ? { ...reading, repaired: true } : undefined;
  }

  /** One trivial repair: a JSON string, or a single wrapping key. */
  private repair(candidate: unknown): ReportReading<T> | undefined {
    if (typeof candidate === "string") {
      const json = parseJson(candidate);
      if (!json.ok) return undefined;
      const reading = this.validate(json.value);
      return reading.ok ? { ...reading, repaired: true } : undefined;
    }
    if (isPlainObject(candidate)) {
      const keys = Object.keys(candidate);
      if (keys.length !== 1) return undefined;
      const reading = this.validate(candidate[keys[0] as string]);
      return reading.ok ? { ...reading, repaired: true } : undefined;
    }
    return undefined;
  }
}
