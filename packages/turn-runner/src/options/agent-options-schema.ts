import { modelInfoSchema } from "@arbor/providers";
import { z } from "zod";
import { ancestryOptionsSchema } from "../contracts/index.js";

/**
 * The longest wait Node's timers take: a longer one fires after 1 ms instead (with a
 * `TimeoutOverflowWarning`), so every duration option is capped here.
 */
export const MAX_TIMER_MS = 2_147_483_647;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((value) => typeof value === "function", {
    message: `must be a function (${what})`,
  });

/** An object with the named methods; validated in place, never copied (it may be a class). */
const withMethods = (what: string, methods: readonly string[]) =>
  z.custom<object>(
    (value) => isObject(value) && methods.every((name) => typeof value[name] === "function"),
    { message: `must be ${what} (an object with ${methods.join(", ")})` },
  );

const count = z.number().int("must be a whole number").nonnegative("must be 0 or more");
const positiveCount = z.number().int("must be a whole number").positive("must be 1 or more");
const duration = z
  .number()
  .nonnegative("must be 0 or more")
  .max(MAX_TIMER_MS, `must be at most ${MAX_TIMER_MS} ms (about 24.8 days)`);
const timeout = duration.positive("must be more than 0 ms");
const tokens = z.number().int("must be a whole number of tokens").nonnegative("must be 0 or more");

/** A model: its catalogue entry and a `stream` method. */
const modelSchema = z.custom<object>(
  (value) =>
    isObject(value) &&
    typeof value.stream === "function" &&
    modelInfoSchema.safeParse(value.info).success,
  {
    message:
      "must be a model: an object with a stream() method and a valid catalogue entry as `info`",
  },
);

const toolSchema = z.looseObject({
  name: z
    .string()
    .regex(
      /^[a-zA-Z0-9_-]{1,64}$/,
      "must be 1-64 letters, digits, `_` or `-` (what providers accept)",
    ),
  description: z.string(),
  parameters: z.custom<object>(
    (value) => isObject(value) && typeof value.safeParse === "function",
    { message: "must be a zod object schema" },
  ),
  execute: fn("the tool's implementation"),
  timeoutMs: timeout.optional(),
  inputJsonSchema: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Every option of `AgentSession`, checked at construction: types, ranges and unknown
 * names. Used to validate only — the options themselves are used as given, so models,
 * sessions and tools keep their classes.
 */
export const agentSessionOptionsSchema = z.strictObject({
  targets: z
    .array(z.strictObject({ model: modelSchema }))
    .min(1, "AgentSession needs at least one model target in `targets`"),
  session: withMethods("a Session (from @arbor/session-store)", [
    "appendMessage",
    "buildSessionContext",
    "getEntries",
  ]),
  tools: z.array(toolSchema).optional(),
  toolOutput: z
    .strictObject({
      maxChars: positiveCount.optional(),
      excerptChars: count.optional(),
      dir: z.string().min(1, "must not be empty").optional(),
    })
    .refine(
      (value) =>
        value.excerptChars === undefined || value.excerptChars <= (value.maxChars ?? 20_000),
      { message: "excerptChars must not be more than maxChars", path: ["excerptChars"] },
    )
    .optional(),
  systemPrompt: z.string().optional(),
  extensions: withMethods("an ExtensionRunner (from @arbor/extensions-api)", ["emit"]).optional(),
  ttsr: withMethods("a TtsrManager (from @arbor/ttsr)", ["checkDelta", "resetBuffer"]).optional(),
  restoreInjectedRules: z.boolean().optional(),
  projectRoot: z.string().min(1, "must not be empty").optional(),
  maxTurns: count.optional(),
  maxRetries: count.optional(),
  toolTimeoutMs: timeout.optional(),
  maxToolCallsPerTurn: positiveCount.optional(),
  toolFailureOverrides: z.record(z.string(), z.string().min(1, "must not be empty")).optional(),
  retryDelayMs: duration.optional(),
  maxRetryDelayMs: duration.optional(),
  classifyModelError: fn("(error) => 'retry' | 'skip'").optional(),
  maxOutputTokens: positiveCount.optional(),
  temperature: z.number().min(0, "must be 0 or more").max(2, "must be at most 2").optional(),
  topP: z.number().min(0, "must be 0 or more").max(1, "must be at most 1").optional(),
  topK: positiveCount.optional(),
  frequencyPenalty: z.number().min(-2, "must be -2 or more").max(2, "must be at most 2").optional(),
  presencePenalty: z.number().min(-2, "must be -2 or more").max(2, "must be at most 2").optional(),
  seed: z
    .number()
    .refine(
      Number.isSafeInteger,
      "must be a whole number from -(2^53 - 1) to 2^53 - 1 (a safe integer)",
    )
    .optional(),
  stop: z
    .array(z.string().min(1, "must not be empty"))
    .min(1, "must list at least one stop sequence")
    .max(16, "must list at most 16 stop sequences")
    .optional(),
  promptCache: z.boolean().optional(),
  summarizeBranch: fn("a branch summarizer").optional(),
  outputSchema: z
    .custom<object>(isObject, { message: "must be a zod schema or a JSON schema object" })
    .optional(),
  maxAnswerRetries: count.optional(),
  contextGuard: z
    .strictObject({
      enabled: z.boolean().optional(),
      bufferTokens: tokens.optional(),
      countTokens: fn("(text) => number of tokens").optional(),
    })
    .optional(),
  telemetry: z
    .strictObject({
      enabled: z.boolean().optional(),
      tracerProvider: withMethods("a TracerProvider", ["getTracer"]).optional(),
      parentContext: z
        .custom<object>(
          (value) => typeof value === "object" && value !== null,
          "must be an OpenTelemetry Context",
        )
        .optional(),
    })
    .optional(),
  ancestry: ancestryOptionsSchema.optional(),
  accountingSink: fn("(record) => void").optional(),
  taskStatusTool: z.boolean().optional(),
  resources: z.array(withMethods("a resource", ["close"])).optional(),
  ownsSession: z.boolean().optional(),
  compaction: z
    .strictObject({
      enabled: z.boolean().optional(),
      reserveTokens: tokens.optional(),
      keepRecentTokens: tokens.optional(),
    })
    .optional(),
  compactionHooks: z
    .strictObject({
      beforeCompact: fn("a beforeCompact hook").optional(),
      afterCompact: fn("an afterCompact hook").optional(),
    })
    .optional(),
  generateTitle: z.union([z.boolean(), fn("a TitleGenerator")]).optional(),
  now: fn("() => epoch milliseconds").optional(),
  sleep: fn("(ms, signal) => Promise<void>").optional(),
  generateRunId: fn("() => string").optional(),
});
