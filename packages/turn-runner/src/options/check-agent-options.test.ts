import { describe, expect, it } from "vitest";
import { z } from "zod";
import { addTool, memorySession, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import type { AgentSessionOptions } from "../agent-session-options.js";
import { InvalidAgentOptionsError } from "../contracts/index.js";

const model = scripted("alpha", []);
const noop = () => undefined;

/** Options that break one rule each: [what is wrong, the options beside targets and session, the option named]. */
const BAD: Array<[string, Record<string, unknown>, string, RegExp]> = [
  ["no targets", { targets: [] }, "targets", /at least one model target/],
  ["targets not an array", { targets: { model } }, "targets", /expected array/],
  ["a target without a model", { targets: [{}] }, "targets[0].model", /must be a model/],
  [
    "a model without stream()",
    { targets: [{ model: { info: model.info } }] },
    "targets[0].model",
    /stream\(\)/,
  ],
  [
    "a model with a broken catalogue entry",
    {
      targets: [{ model: { ...model, stream: noop, info: { ...model.info, contextWindow: -1 } } }],
    },
    "targets[0].model",
    /catalogue entry/,
  ],
  [
    "a target with an unknown key",
    { targets: [{ model, weight: 2 }] },
    "targets[0].weight",
    /no option/,
  ],
  ["no session", { session: undefined }, "session", /Session/],
  ["a session that is not one", { session: { id: "s" } }, "session", /appendMessage/],
  ["maxTurns negative", { maxTurns: -1 }, "maxTurns", /0 or more/],
  ["maxTurns fractional", { maxTurns: 2.5 }, "maxTurns", /whole number/],
  ["maxTurns NaN", { maxTurns: Number.NaN }, "maxTurns", /number/],
  ["maxTurns infinite", { maxTurns: Number.POSITIVE_INFINITY }, "maxTurns", /number|whole/],
  ["maxTurns a string", { maxTurns: "5" }, "maxTurns", /expected number/],
  ["maxRetries negative", { maxRetries: -3 }, "maxRetries", /0 or more/],
  ["maxAnswerRetries fractional", { maxAnswerRetries: 0.5 }, "maxAnswerRetries", /whole/],
  ["toolTimeoutMs zero", { toolTimeoutMs: 0 }, "toolTimeoutMs", /more than 0/],
  [
    "toolTimeoutMs past the timer limit",
    { toolTimeoutMs: 3e9 },
    "toolTimeoutMs",
    /at most 2147483647/,
  ],
  ["retryDelayMs negative", { retryDelayMs: -1 }, "retryDelayMs", /0 or more/],
  [
    "maxRetryDelayMs past the timer limit",
    { maxRetryDelayMs: 2 ** 31 },
    "maxRetryDelayMs",
    /at most/,
  ],
  ["maxToolCallsPerTurn zero", { maxToolCallsPerTurn: 0 }, "maxToolCallsPerTurn", /1 or more/],
  ["maxOutputTokens zero", { maxOutputTokens: 0 }, "maxOutputTokens", /1 or more/],
  ["maxOutputTokens fractional", { maxOutputTokens: 10.5 }, "maxOutputTokens", /whole/],
  ["temperature too high", { temperature: 2.5 }, "temperature", /at most 2/],
  ["temperature negative", { temperature: -0.1 }, "temperature", /0 or more/],
  ["topP over 1", { topP: 1.01 }, "topP", /at most 1/],
  ["topK zero", { topK: 0 }, "topK", /1 or more/],
  ["frequencyPenalty out of range", { frequencyPenalty: -3 }, "frequencyPenalty", /-2 or more/],
  ["presencePenalty out of range", { presencePenalty: 2.1 }, "presencePenalty", /at most 2/],
  ["seed fractional", { seed: 0.5 }, "seed", /safe integer/],
  ["seed unsafe", { seed: 2 ** 60 }, "seed", /safe integer/],
  ["stop empty", { stop: [] }, "stop", /at least one/],
  ["a stop sequence empty", { stop: ["x", ""] }, "stop[1]", /not be empty/],
  ["stop a string", { stop: "END" }, "stop", /expected array/],
  ["promptCache a string", { promptCache: "no" }, "promptCache", /boolean/],
  [
    "a tool name with spaces",
    { tools: [{ ...addTool, name: "add two" }] },
    "tools[0].name",
    /letters, digits/,
  ],
  [
    "a tool name too long",
    { tools: [{ ...addTool, name: "x".repeat(65) }] },
    "tools[0].name",
    /1-64/,
  ],
  [
    "a tool without execute",
    { tools: [{ ...addTool, execute: undefined }] },
    "tools[0].execute",
    /function/,
  ],
  [
    "a tool with a timeout of 0",
    { tools: [{ ...addTool, timeoutMs: 0 }] },
    "tools[0].timeoutMs",
    /more than 0/,
  ],
  [
    "toolFailureOverrides empty text",
    { toolFailureOverrides: { add: "" } },
    "toolFailureOverrides.add",
    /empty/,
  ],
  [
    "contextGuard.bufferTokens negative",
    { contextGuard: { bufferTokens: -5 } },
    "contextGuard.bufferTokens",
    /0 or more/,
  ],
  ["contextGuard unknown key", { contextGuard: { buffer: 5 } }, "contextGuard.buffer", /no option/],
  [
    "compaction.reserveTokens fractional",
    { compaction: { reserveTokens: 1.5 } },
    "compaction.reserveTokens",
    /whole/,
  ],
  ["toolOutput.maxChars zero", { toolOutput: { maxChars: 0 } }, "toolOutput.maxChars", /1 or more/],
  [
    "toolOutput.excerptChars over maxChars",
    { toolOutput: { maxChars: 100, excerptChars: 200 } },
    "toolOutput.excerptChars",
    /not be more than maxChars/,
  ],
  ["telemetry.enabled a string", { telemetry: { enabled: "yes" } }, "telemetry.enabled", /boolean/],
  ["now not a function", { now: 5 }, "now", /function/],
  ["sleep not a function", { sleep: "later" }, "sleep", /function/],
  ["accountingSink not a function", { accountingSink: [] }, "accountingSink", /function/],
  ["resources without close()", { resources: [{}] }, "resources[0]", /close/],
  ["generateTitle a string", { generateTitle: "yes" }, "generateTitle", /Invalid input|function/],
  ["a misspelt option", { maxTurn: 5 }, "maxTurn", /no option `maxTurn`/],
  ["an unknown option", { retries: 2 }, "retries", /spelling/],
];

describe("AgentSession option validation", () => {
  it.each(BAD)("refuses %s, naming %s", async (_what, extra, option, message) => {
    const session = await memorySession();
    let error: unknown;
    try {
      new AgentSession({ targets: [{ model }], session, ...extra } as AgentSessionOptions);
    } catch (caught) {
      error = caught;
    }
    expect(InvalidAgentOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "invalid_agent_options", option });
    expect((error as Error).message).toMatch(message);
    expect(session.getEntries()).toEqual([]);
  });

  it("takes every option at its bounds", async () => {
    const session = await memorySession();
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [addTool],
      maxTurns: 0,
      maxRetries: 0,
      maxAnswerRetries: 0,
      retryDelayMs: 0,
      maxRetryDelayMs: 2_147_483_647,
      toolTimeoutMs: 1,
      maxToolCallsPerTurn: 1,
      maxOutputTokens: 1,
      temperature: 2,
      topP: 0,
      topK: 1,
      frequencyPenalty: -2,
      presencePenalty: 2,
      seed: -(2 ** 53 - 1),
      stop: Array.from({ length: 16 }, (_, i) => `s${i}`),
      promptCache: false,
      outputSchema: z.object({}),
      toolOutput: { maxChars: 10, excerptChars: 10 },
      contextGuard: { enabled: false, bufferTokens: 0 },
      compaction: { enabled: false, reserveTokens: 0, keepRecentTokens: 0 },
      telemetry: { enabled: false },
      generateTitle: false,
      taskStatusTool: true,
      ancestry: { agentPath: "main" },
    });
    expect(agent.session).toBe(session);
  });

  it("refuses options that are not an object", () => {
    for (const value of [undefined, null, 42, "options"]) {
      expect(() => new AgentSession(value as unknown as AgentSessionOptions)).toThrow(
        InvalidAgentOptionsError,
      );
    }
  });
});
