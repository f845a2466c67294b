import { z } from "zod";
import {
  agentTargetSchema,
  expectedRequestSchema,
  expectedResultSchema,
  expectedTreeSchema,
  scenarioToolSchema,
} from "../agent-scenario/agent-scenario-schema.js";

/** The format version of orchestration scenarios (agent scenarios are version 2). */
export const ORCHESTRATION_SCENARIO_VERSION = 3;

/** Something done to the running orchestration, once a child starts (or after a delay). */
export const orchestrationActionSchema = z
  .object({
    action: z.enum(["abort", "stop"]),
    /** Acts when the child with this agent path starts (`main:researcher`). */
    onChildStart: z.string().min(1).optional(),
    /** Waits this long first (after the child started, or after the run started). */
    afterMs: z.number().int().nonnegative().default(0),
  })
  .strict();

/**
 * A crash: the run goes in a separate process that is killed with SIGKILL once the child
 * with this agent path has started and its model streams; then the root session is resumed in-process with the
 * scenario's `prompt` and `targets`.
 */
export const orchestrationCrashSchema = z
  .object({
    /** The prompt of the run that is killed. */
    prompt: z.string().min(1),
    /** The agent path whose `child_start` triggers the kill. */
    killOnChildStart: z.string().min(1),
    /** How long after the first model call that follows that `child_start` the process is killed. */
    killAfterMs: z.number().int().nonnegative().default(0),
    /** The scripted answers of the killed run, by model id (scripted models only). */
    targets: z.record(z.string(), z.array(z.unknown())),
  })
  .strict();

/** The expected tree of one session, and its place in the run. */
export const expectedSessionSchema = expectedTreeSchema
  .extend({
    /** Its child entries as `agent:outcome`, sorted (a child shows `running` and then its outcome). */
    children: z.array(z.string()).optional(),
  })
  .strict();

/** Expected fields of the orchestration's result object. */
export const expectedOrchestrationResultSchema = expectedResultSchema
  .extend({
    finalAgent: z.string().optional(),
  })
  .strict();

/** What an orchestration scenario must produce. */
export const orchestrationExpectSchema = z
  .object({
    /** Loading or running fails with an error whose message contains this text (each of these). */
    throws: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .transform((value) => (typeof value === "string" ? [value] : value))
      .optional(),
    result: expectedOrchestrationResultSchema.optional(),
    /** `result.children` as `agentPath role outcome`, sorted. */
    children: z.array(z.string()).optional(),
    /**
     * Every session of the store by agent path (a second session of one path is
     * `path#2`, in start order). Exactly these sessions must exist.
     */
    sessions: z.record(z.string(), expectedSessionSchema).optional(),
    /** The orchestration's own events as `child_start <path>` / `child_end <path> <outcome>`, sorted. */
    childEvents: z.array(z.string()).optional(),
    /** Event types that must appear in the stream. */
    eventsInclude: z.array(z.string()).optional(),
    /** Event types that must not appear. */
    eventsExclude: z.array(z.string()).optional(),
    /** Model calls per model id. */
    calls: z.record(z.string(), z.number().int().nonnegative()).optional(),
    /** Requests a scripted model received (`target` is ignored; `model` names it). */
    requests: z
      .array(expectedRequestSchema.extend({ model: z.string().min(1) }).strict())
      .optional(),
    /** Tool calls of the app's tools in the order they started. */
    toolCalls: z.array(z.string()).optional(),
    /** The most sub-agent runs going at the same moment. */
    maxConcurrentChildren: z.number().int().nonnegative().optional(),
    maxDurationMs: z.number().positive().optional(),
  })
  .strict();

/**
 * An orchestration scenario (format version 3): agent files (written to a temporary
 * folder and loaded with `loadAgentTree`), the scripted answers of each model they name
 * (`scenario/<id>`; scripted, or through the real adapters against the fake servers), the
 * app's tools, one prompt run with `runAgent` on a file store, actions, an optional crash
 * (SIGKILL) and resume, and the expected result, sessions and events.
 *
 * @example
 * ```yaml
 * version: 3
 * name: one advisor
 * agents:
 *   main.md: "---\nmodels: [scenario/main]\nadvisors: [critic.md]\n---\nYou answer.\n"
 *   critic.md: "---\nmodels: [scenario/critic]\n---\nYou criticize.\n"
 * targets:
 *   main: { provider: scripted, turns: [Done.] }
 *   critic: { provider: openai, turns: [Careful.] }
 * prompt: Do it
 * expect:
 *   result: { success: true, finalAgent: main }
 *   sessions: { main: { path: [user, assistant] }, "main:critic": { path: [custom:arbor.orchestration.ancestry, user, assistant] } }
 * ```
 */
export const orchestrationScenarioSchema = z
  .object({
    version: z.literal(ORCHESTRATION_SCENARIO_VERSION),
    name: z.string().min(1),
    description: z.string().optional(),
    /** Agent files by file name (subfolders allowed); the first is the entry unless `entry` says. */
    agents: z.record(z.string().min(1), z.string()),
    entry: z.string().min(1).optional(),
    /** The model of each id the agent files name as `scenario/<id>`. */
    targets: z.record(z.string().min(1), agentTargetSchema),
    tools: z.array(scenarioToolSchema).default([]),
    prompt: z.string(),
    limits: z
      .object({
        depth: z.number().int().nonnegative().optional(),
        concurrency: z.number().int().positive().optional(),
      })
      .strict()
      .default({}),
    actions: z.array(orchestrationActionSchema).default([]),
    crash: orchestrationCrashSchema.optional(),
    expect: orchestrationExpectSchema,
  })
  .strict();

/** A parsed orchestration scenario. */
export type OrchestrationScenario = z.output<typeof orchestrationScenarioSchema>;
/** An orchestration scenario as written. */
export type OrchestrationScenarioInput = z.input<typeof orchestrationScenarioSchema>;
/** Expected tree and children of one session. */
export type ExpectedSession = z.output<typeof expectedSessionSchema>;
