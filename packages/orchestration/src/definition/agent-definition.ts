import { REASONING_LEVELS } from "@arbor/providers";
import { ttsrRuleSchema } from "@arbor/ttsr";
import { mcpServerConfigSchema } from "@arbor/turn-runner";
import { z } from "zod";
import { modelTargetSpecSchema } from "./model-target-spec.js";

/** An agent's name: a letter or digit, then letters, digits, `.`, `_` or `-`; 64 at most. */
export const agentNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    "a name is 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
  );

const count = (max: number) => z.number().int().min(1).max(max);

/** How far a run of the agent may go; each maps to the turn runner's option of that name. */
export const agentLimitsSchema = z.strictObject({
  /** Turns per prompt before the run fails with `max_turns`. */
  maxTurns: count(1_000).optional(),
  /** Failed attempts per turn retried before the run fails. */
  maxRetries: z.number().int().min(0).max(100).optional(),
  /** Synthetic retries per turn (empty, cut-off or invalid answers). */
  maxAnswerRetries: z.number().int().min(0).max(20).optional(),
  /** Default timeout of a tool call, in ms. */
  toolTimeoutMs: count(86_400_000).optional(),
  /** The most output tokens asked of the model per answer. */
  maxOutputTokens: count(10_000_000).optional(),
  /** Sampling temperature. */
  temperature: z.number().min(0).max(2).optional(),
  /** Nucleus sampling: the probability mass the model samples from, 0 to 1. */
  topP: z.number().min(0).max(1).optional(),
  /** Sample among this many most likely tokens (servers that support it). */
  topK: count(1_000_000).optional(),
  /** Penalty on tokens by how often they appeared, -2 to 2 (OpenAI-compatible servers). */
  frequencyPenalty: z.number().min(-2).max(2).optional(),
  /** Penalty on tokens that appeared at all, -2 to 2 (OpenAI-compatible servers). */
  presencePenalty: z.number().min(-2).max(2).optional(),
  /** A seed for repeatable sampling where the server supports it. */
  seed: z.number().int().refine(Number.isSafeInteger, "must be a safe integer").optional(),
  /** Sequences that end an answer, 1 to 16. */
  stop: z.array(z.string().min(1)).min(1).max(16).optional(),
});

const agentPathList = z
  .array(z.string().min(1).max(4_096))
  .max(64)
  .refine((paths) => new Set(paths).size === paths.length, "a path is listed twice");

/** Where a router may hand a request: the agent files of its destinations. */
export const agentRouterSchema = z.strictObject({
  /** Agent file paths (relative ones are resolved against the agent file's folder); at least one. */
  destinations: agentPathList.min(1, "name at least one destination"),
});

/** The limits of an agent. */
export type AgentLimits = z.output<typeof agentLimitsSchema>;

/**
 * What an agent is, in one place: who it is, what it is told, which models serve it, what
 * it may use, how its answers are checked and how far it may go. A Markdown agent file
 * holds the same fields in YAML front matter, its body being the system prompt.
 */
export const agentDefinitionSchema = z.strictObject({
  name: agentNameSchema,
  /** What the agent is for, shown in listings and to routers. */
  description: z.string().max(4_000).optional(),
  /**
   * The system prompt; in an agent file, the Markdown body. Absent: the model gets none
   * (an app's plain chat agent); when given, it may not be blank.
   */
  systemPrompt: z
    .string()
    .max(1_000_000)
    .refine((text) => text.trim().length > 0, "the system prompt is empty")
    .optional(),
  /** The models that serve the agent, tried round-robin with failover; at least one. */
  models: z.array(modelTargetSpecSchema).min(1, "name at least one model").max(32),
  /** The reasoning level asked for until the session sets one. */
  thinking: z.enum(REASONING_LEVELS).optional(),
  /** The names of the app's tools the agent may use; every tool the app offers when absent. */
  tools: z
    .array(z.string().min(1).max(128))
    .max(256)
    .refine((names) => new Set(names).size === names.length, "a tool is named twice")
    .optional(),
  /** MCP servers whose tools the agent gets. */
  mcpServers: z.array(mcpServerConfigSchema).max(64).optional(),
  /** Stream rules of this agent, added to the app's. */
  streamRules: z.array(ttsrRuleSchema).max(256).optional(),
  /** Extension module paths (relative ones are resolved against the agent file's folder). */
  extensions: z.array(z.string().min(1).max(4_096)).max(64).optional(),
  /** The JSON schema of the final report the agent must deliver. */
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  limits: agentLimitsSchema.optional(),
  /**
   * Agent files run in parallel before this agent, each on the original request; their
   * answers reach this agent as tagged blocks beside the request.
   */
  advisors: agentPathList.optional(),
  /** Makes the agent a router: it gets the `router__handoff-to` tool over these destinations. */
  router: agentRouterSchema.optional(),
  /** The agent file run after this agent (or its router chain) with the request and the response. */
  handoff: z.string().min(1).max(4_096).optional(),
  /** Sub-agent files, each offered as an `agent__<name>` tool that runs it to its final report. */
  agents: agentPathList.optional(),
  /**
   * The JSON schema of this agent's input when it is a sub-agent (the `agent__<name>` tool's
   * parameters); default `{ prompt: string }`.
   */
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  /**
   * Wall-clock limit, in ms, of one run of this agent as a child (advisor, destination,
   * handoff or sub-agent); past it the child is aborted and its outcome is `timed_out`.
   */
  timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
});

/** An agent definition as written (model targets may be strings). */
export type AgentDefinitionInput = z.input<typeof agentDefinitionSchema>;
/** A checked agent definition. */
export type AgentDefinition = z.output<typeof agentDefinitionSchema>;
