import { imagePartSchema, REASONING_LEVELS, usageSchema } from "@arbor/orchestration";
import { scriptedResponseSchema } from "@arbor/orchestration/test";
import { z } from "zod";
import { expectedExtensionsSchema, scenarioExtensionsSchema } from "./scenario-extensions.js";

/** The format version of agent scenarios (adapter-only scenarios are version 1). */
export const AGENT_SCENARIO_VERSION = 2;

/** One model target of the agent: which wire it speaks and the answers it gives, in order. */
export const agentTargetSchema = z
  .object({
    /** `scripted` plays the turns in-process; `openai` / `anthropic` go through the real adapter and a fake server. */
    provider: z.enum(["scripted", "openai", "anthropic"]),
    /** A catalogue key (`openai/gpt-4.1`) or a bare model id. */
    model: z.string().default("openai/gpt-4.1"),
    /** The provider name the target reports (and failover records show); defaults to the catalogue's. */
    name: z.string().min(1).optional(),
    /** Overrides the catalogue's context window, for context-guard scenarios. */
    contextWindow: z.number().int().positive().optional(),
    /** Overrides the catalogue's maximum output tokens. */
    maxOutputTokens: z.number().int().positive().optional(),
    /** Idle timeout of the real adapter; a stalled scripted `timeout` trips it. */
    idleTimeoutMs: z.number().int().positive().default(2000),
    /** One scripted answer per call to this target, failures included. */
    turns: z.array(scriptedResponseSchema).default([]),
  })
  .strict();

/** What one call of a declared tool does. */
export const toolBehaviourSchema = z
  .object({
    /** Wait this long first (past the timeout to script a timeout); cut short by the tool's signal. */
    sleepMs: z.number().int().nonnegative().optional(),
    /** The text returned. `{{args}}` is replaced by the call's arguments as JSON. */
    returns: z.string().optional(),
    /** Return this many characters (`x` repeated), to script oversize output. */
    returnsChars: z.number().int().positive().optional(),
    /** Throw an Error with this message. */
    throws: z.string().optional(),
  })
  .strict();

/** A parameter type of a declared tool; a trailing `?` makes it optional. */
export const toolParameterTypeSchema = z.enum([
  "string",
  "number",
  "integer",
  "boolean",
  "string?",
  "number?",
  "integer?",
  "boolean?",
]);

/** A tool the agent may call, with scripted behaviour per call (the last one repeats). */
export const scenarioToolSchema = z
  .object({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
    description: z.string().default("A scenario tool"),
    /** Parameter name → type; arguments are validated against it. */
    parameters: z.record(z.string(), toolParameterTypeSchema).default({}),
    timeoutMs: z.number().int().positive().optional(),
    /** What successive calls do; the last entry repeats. Default: returns `ok`. */
    behaviour: z.array(toolBehaviourSchema).default([{ returns: "ok" }]),
  })
  .strict();

/**
 * An MCP server the harness starts (its scripted MCP server), whose tools the agent reaches
 * through the real MCP client as `<name>_<tool>`.
 */
export const scenarioMcpServerSchema = z
  .object({
    name: z.string().min(1),
    /**
     * `stdio` (default): a child process on stdin and stdout. `http`: the official SDK's
     * streamable HTTP server on a loopback port, behind a bearer token.
     */
    transport: z.enum(["stdio", "http"]).default("stdio"),
    /** Timeout of each call to this server's tools. */
    timeoutMs: z.number().int().positive().optional(),
    tools: z.array(scenarioToolSchema).min(1),
  })
  .strict();

/** Loop limits (to the agent definition) and retry waits (to the host's `agentOptions`). */
export const agentLimitsSchema = z
  .object({
    maxTurns: z.number().int().positive().optional(),
    maxRetries: z.number().int().nonnegative().optional(),
    toolTimeoutMs: z.number().int().positive().optional(),
    retryDelayMs: z.number().int().nonnegative().optional(),
    maxRetryDelayMs: z.number().int().nonnegative().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
  })
  .strict();

/** Budgets and defaults of the TTSR manager. */
export const ttsrOptionsSchema = z
  .object({
    maxInterruptsPerTurn: z.number().int().nonnegative().optional(),
    maxInterruptsPerSession: z.number().int().nonnegative().optional(),
    repeatGap: z.number().int().positive().optional(),
    silenceAfter: z.number().int().positive().optional(),
  })
  .strict();

/** The agent under test. */
export const agentConfigSchema = z
  .object({
    targets: z.array(agentTargetSchema).min(1),
    system: z.string().optional(),
    tools: z.array(scenarioToolSchema).default([]),
    /** MCP servers over stdio or streamable HTTP; their tools are added after the local ones. */
    mcpServers: z.array(scenarioMcpServerSchema).default([]),
    /** Inline stream rules (the `@arbor/ttsr` rule format); none means no TTSR manager. */
    rules: z.array(z.record(z.string(), z.unknown())).default([]),
    ttsr: ttsrOptionsSchema.default({}),
    limits: agentLimitsSchema.default({}),
    /**
     * `virtual` (default) records every backoff wait and skips it; `real` waits (cut short
     * by abort), for scenarios that prove a wait is interrupted.
     */
    waits: z.enum(["virtual", "real"]).default("virtual"),
    /** `model`: `navigateTree` summaries are written by the serving model (`summarizeBranchWithModel`). */
    branchSummaries: z.enum(["none", "model"]).default("none"),
    /**
     * Extensions loaded into an `ExtensionRunner` (a recorder first, see
     * `scenario-extensions.ts`); the harness emits `session_start` (`startup`, `resume` after a
     * reload) and the agent's shutdown emits `session_shutdown`.
     */
    extensions: scenarioExtensionsSchema.optional(),
    /**
     * Further turn-runner options (JSON values only): `outputSchema` and limit keys go to the
     * agent definition, the keys of the host's `agentOptions` are passed on, others are refused.
     */
    options: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/** Something done to a running prompt: when, and what. */
export const promptActionSchema = z
  .object({
    action: z.enum(["abort", "stop", "shutdown"]),
    /** After this many events of the run (of type `onEvent` when given). */
    afterEvents: z.number().int().positive().optional(),
    /** Counts only events of this type. */
    onEvent: z.string().optional(),
    /** After this many milliseconds of wall time. */
    afterMs: z.number().int().nonnegative().optional(),
    /** Once this many calls of the scenario's own tools have started (the tool is running). */
    afterToolCalls: z.number().int().positive().optional(),
  })
  .strict()
  .refine(
    (value) =>
      value.afterEvents !== undefined ||
      value.afterMs !== undefined ||
      value.afterToolCalls !== undefined,
    { message: "an action needs afterEvents, afterMs or afterToolCalls" },
  );

/**
 * One prompt of the scenario; a bare string is shorthand for `{ text }`. What is done
 * before it runs, in this order: reload, navigate, fork, set the model, set the thinking level,
 * compact, run an extension command.
 */
export const scenarioPromptSchema = z.union([
  z
    .string()
    .transform((text) => ({ text, repeat: 1, reloadBefore: false, actions: [], images: [] })),
  z
    .object({
      text: z.string(),
      /** Send the text this many times over, for prompts that must not fit a context window. */
      repeat: z.number().int().positive().default(1),
      /** Close the host and open the session again from disk (a new agent and TTSR manager) first. */
      reloadBefore: z.boolean().default(false),
      /** `navigateTree` to the entry at this index of the active path (negative: from the leaf). */
      navigateTo: z
        .object({ pathIndex: z.number().int(), summarize: z.boolean().default(false) })
        .strict()
        .optional(),
      /** `fork` at the entry at this index of the active path; the run continues in the fork. */
      forkAt: z.number().int().optional(),
      /** `setModel` to the model of the target at this index. */
      setModel: z.number().int().nonnegative().optional(),
      setThinkingLevel: z.enum(REASONING_LEVELS).optional(),
      /** `compact(instructions)` (a manual compaction) before the prompt. */
      compact: z
        .object({ instructions: z.string().min(1).optional() })
        .strict()
        .optional(),
      /** Runs an extension's `/command` (`agent.extensions.runCommand`) before the prompt. */
      command: z
        .object({ name: z.string().min(1), args: z.string().default("") })
        .strict()
        .optional(),
      /** Images sent with the prompt. */
      images: z.array(imagePartSchema.omit({ type: true })).default([]),
      actions: z.array(promptActionSchema).default([]),
    })
    .strict(),
]);

const failureReasonSchema = z.string().min(1);

/** Expected fields of one prompt's result object (only the named fields are compared). */
export const expectedResultSchema = z
  .object({
    success: z.boolean().optional(),
    reason: failureReasonSchema.optional(),
    turns: z.number().int().nonnegative().optional(),
    usage: usageSchema.partial().optional(),
    /** Compared to 9 decimal places. */
    cost: z.number().nonnegative().optional(),
    /** The final report; objects match as a subset (named keys only), everything else exactly. */
    finalReport: z.unknown().optional(),
    /** A substring of the result's `message`. */
    messageContains: z.string().optional(),
  })
  .strict();

/** A custom entry expected in the tree; `data` is matched as a subset. */
export const expectedCustomEntrySchema = z
  .object({
    customType: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** Expected shape of the session tree after the last prompt. */
export const expectedTreeSchema = z
  .object({
    /**
     * The active path (root to leaf) as labels: `user`, `assistant`, `assistant:aborted`,
     * `toolResult`, `toolResult:error`, `custom:<type>`, `custom_message:<type>`, or the
     * entry type (`ttsr_injection`, `model_change`, …).
     */
    path: z.array(z.string()).optional(),
    /** Aborted assistant answers left off the active path (discarded partials). */
    abortedSiblings: z.number().int().nonnegative().optional(),
    /** Custom entries in file order, filtered to the types named here. */
    custom: z.array(expectedCustomEntrySchema).optional(),
    /** Every `ttsr_injection` record in file order. */
    ttsrInjections: z.array(z.record(z.string(), z.unknown())).optional(),
    /** Count of entries (the header excluded). */
    entries: z.number().int().nonnegative().optional(),
    /** Substrings the last assistant answer on the path must contain. */
    lastAnswerContains: z.array(z.string()).optional(),
    /** Substrings expected in the tool results on the path, in order. */
    toolResultsContain: z.array(z.string()).optional(),
    /** The session's title (`getTitle()`) after the last prompt. */
    title: z.string().optional(),
  })
  .strict();

/** What a scripted target was sent in one call (only the named fields are compared). */
export const expectedRequestSchema = z
  .object({
    /** Index of the target (scripted targets only). */
    target: z.number().int().nonnegative().default(0),
    /** Index of the call to that target; negative counts from the last. */
    call: z.number().int().default(-1),
    /** Roles of the request's messages, in order. */
    roles: z.array(z.string()).optional(),
    /** Names of the tools offered. */
    tools: z.array(z.string()).optional(),
    reasoning: z.enum(REASONING_LEVELS).optional(),
    /** Image parts in the last message. */
    images: z.number().int().nonnegative().optional(),
    /** A substring of the last message's text. */
    lastMessageContains: z.string().optional(),
    /** A substring of the request's system prompt. */
    systemContains: z.string().optional(),
    /** Substrings each found in the text of some message of the request. */
    messagesContain: z.array(z.string()).optional(),
  })
  .strict();

/** What an agent scenario must produce. */
export const agentExpectSchema = z
  .object({
    /** The result of the last prompt. */
    result: expectedResultSchema.optional(),
    /** The result of every prompt, in order. */
    results: z.array(expectedResultSchema).optional(),
    tree: expectedTreeSchema.optional(),
    /** Event types of the last prompt, deltas collapsed to one per run. */
    events: z.array(z.string()).optional(),
    /** Event types that must appear somewhere in the last prompt's events. */
    eventsInclude: z.array(z.string()).optional(),
    /** Event types that must not appear in any prompt's events. */
    eventsExclude: z.array(z.string()).optional(),
    /** Model calls per target, in target order. */
    calls: z.array(z.number().int().nonnegative()).optional(),
    /** Tool calls in the order they started, as `name` or `name(argsJSON)` when `toolArgs`. */
    toolCalls: z.array(z.string()).optional(),
    /** Tool calls in the order they finished. */
    toolsFinished: z.array(z.string()).optional(),
    /** The most tool calls running at the same moment. */
    maxConcurrentTools: z.number().int().nonnegative().optional(),
    /** Requests the scripted targets received. */
    requests: z.array(expectedRequestSchema).optional(),
    /** Backoff waits the runner asked for, in ms. */
    waits: z.array(z.number().nonnegative()).optional(),
    /**
     * The scenario ends with an error whose message contains this text (bad options, a
     * rejected prompt): what the caller sees. Nothing else is checked then.
     */
    throws: z.string().min(1).optional(),
    /** The whole scenario finishes within this many ms of wall time. */
    maxDurationMs: z.number().positive().optional(),
    /** What the extensions saw and did (needs `agent.extensions`). */
    extensions: expectedExtensionsSchema.optional(),
  })
  .strict();

/**
 * An agent scenario (format version 2): an agent opened through `AgentHost` on a session
 * file, its model targets with scripted answers (through the scripted model or the real
 * adapters against the fake servers), tools with scripted behaviour, stream rules, prompts with actions,
 * and the expected result objects, session tree and events.
 *
 * @example
 * ```yaml
 * version: 2
 * name: answers in one turn
 * agent:
 *   targets: [{ provider: openai, turns: [Hello!] }]
 * prompts: [Hi]
 * expect:
 *   result: { success: true, turns: 1 }
 *   tree: { path: [user, assistant] }
 * ```
 */
export const agentScenarioSchema = z
  .object({
    version: z.literal(AGENT_SCENARIO_VERSION),
    name: z.string().min(1),
    description: z.string().optional(),
    agent: agentConfigSchema,
    prompts: z.array(scenarioPromptSchema).min(1),
    expect: agentExpectSchema,
  })
  .strict();

/** A parsed agent scenario with defaults applied. */
export type AgentScenario = z.output<typeof agentScenarioSchema>;
/** An agent scenario as written in a file. */
export type AgentScenarioInput = z.input<typeof agentScenarioSchema>;
/** One declared tool of an agent scenario. */
export type ScenarioTool = z.output<typeof scenarioToolSchema>;
/** One MCP server of an agent scenario. */
export type ScenarioMcpServer = z.output<typeof scenarioMcpServerSchema>;
/** One model target of an agent scenario. */
export type AgentTarget = z.output<typeof agentTargetSchema>;
/** The agent under test, as checked. */
export type AgentConfig = z.output<typeof agentConfigSchema>;
/** Expected fields of a result object. */
export type ExpectedResult = z.output<typeof expectedResultSchema>;
/** Expected fields of one request to a scripted target. */
export type ExpectedRequest = z.output<typeof expectedRequestSchema>;
/** Expected shape of a session tree. */
export type ExpectedTree = z.output<typeof expectedTreeSchema>;
