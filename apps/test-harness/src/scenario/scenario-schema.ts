import {
  MODEL_ERROR_KINDS,
  STOP_REASONS,
  toolDefinitionSchema,
  usageSchema,
} from "@arbor/orchestration";
import { scriptedResponseSchema } from "@arbor/orchestration/test";
import { z } from "zod";

/** The current scenario format version. */
export const SCENARIO_VERSION = 1;

/** Which model the scenario talks to: a real adapter against the fake server, or the scripted model. */
export const scenarioAgentSchema = z.object({
  provider: z.enum(["openai", "anthropic", "scripted"]),
  /** A catalogue key (`openai/gpt-4.1`) or a bare model id. */
  model: z.string().default("openai/gpt-4.1"),
  system: z.string().optional(),
  tools: z.array(toolDefinitionSchema).default([]),
  reasoning: z.enum(["off", "minimal", "low", "medium", "high"]).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  idleTimeoutMs: z.number().int().positive().default(2000),
});

/** What the scenario must produce. Fields the adapter-only runner cannot check yet are reserved. */
export const scenarioExpectSchema = z
  .object({
    /** Exact text of the last call. */
    text: z.string().optional(),
    /** Substrings the last call's text must contain. */
    textContains: z.array(z.string()).optional(),
    thinking: z.string().optional(),
    stopReason: z.enum(STOP_REASONS).optional(),
    /** The classified failure of the last call. */
    error: z
      .object({
        kind: z.enum(MODEL_ERROR_KINDS),
        retryAfterMs: z.number().nonnegative().optional(),
      })
      .optional(),
    toolCalls: z
      .array(
        z.object({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }),
      )
      .optional(),
    /** Summed usage over all calls. */
    accounting: usageSchema.partial().optional(),
    /** Event types of all calls in order; deltas collapse to one entry per run. */
    events: z.array(z.string()).optional(),
    calls: z.number().int().nonnegative().optional(),
    /** Reserved for the turn-runner: the final report of the session. */
    finalReport: z.unknown().optional(),
    /** Reserved for the turn-runner: the shape of the session tree. */
    sessionTree: z.unknown().optional(),
  })
  .strict();

/**
 * A scenario file (JSON or YAML): agent config, user prompts, the scripted model turns
 * (failures included), stream rules, and the expected outcome.
 *
 * @example
 * ```yaml
 * name: OpenAI adapter streams text
 * agent: { provider: openai, model: openai/gpt-4.1 }
 * prompts: [Hello]
 * turns: [{ blocks: [{ type: text, text: Hi! }], chunkSize: 1 }]
 * expect: { text: Hi!, stopReason: stop }
 * ```
 */
export const scenarioSchema = z
  .object({
    version: z.literal(SCENARIO_VERSION).default(SCENARIO_VERSION),
    name: z.string().min(1),
    description: z.string().optional(),
    agent: scenarioAgentSchema,
    prompts: z.array(z.string()).min(1),
    turns: z.array(scriptedResponseSchema),
    /** Stream rules for the turn-runner's TTSR wiring; kept verbatim until then. */
    rules: z.array(z.unknown()).default([]),
    expect: scenarioExpectSchema,
  })
  .strict();
/** A parsed scenario with defaults applied. */
export type Scenario = z.output<typeof scenarioSchema>;
/** A scenario as written in a file. */
export type ScenarioInput = z.input<typeof scenarioSchema>;
