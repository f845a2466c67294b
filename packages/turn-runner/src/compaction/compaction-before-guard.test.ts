import type { Model, ModelEvent, ModelInfo, ModelRequest } from "@arbor/providers";
import { modelInfoSchema } from "@arbor/providers";
import { SCRIPTED_MODEL_INFO, scriptedResponseSchema, scriptToEvents } from "@arbor/providers/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, memorySession } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import { defineTool } from "../agent-tool.js";
import { ContextGuard } from "../context-guard.js";
import { SUMMARIZER_SYSTEM_PROMPT } from "./prompts.js";
import {
  compactionBudget,
  DEFAULT_COMPACTION_SETTINGS,
  resolveCompactionSettings,
} from "./settings.js";

function info(contextWindow: number, maxOutputTokens: number): ModelInfo {
  return modelInfoSchema.parse({
    ...SCRIPTED_MODEL_INFO,
    provider: "alpha",
    id: "alpha-model",
    contextWindow,
    maxOutputTokens,
  });
}

/**
 * A model that reads a big file `reads` times per prompt, then answers; asked for a
 * summary it writes one. It reports as input what it was sent (chars/4), as providers do,
 * so the guard's estimate grows the way a real session's does.
 */
class ReadingModel implements Model {
  readonly requests: ModelRequest[] = [];
  summaries = 0;
  private readsThisPrompt = 0;

  constructor(
    readonly info: ModelInfo,
    private readonly reads: number,
  ) {}

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    this.requests.push(request);
    const input = Math.ceil(JSON.stringify([request.system, request.messages]).length / 4);
    const usage = { input, output: 20 };
    let response: unknown;
    if (request.system === SUMMARIZER_SYSTEM_PROMPT) {
      this.summaries += 1;
      response = { blocks: [{ type: "text", text: `## Goal\nsummary ${this.summaries}` }], usage };
    } else {
      const last = request.messages.at(-1);
      if (last?.role === "user") this.readsThisPrompt = 0;
      if (this.readsThisPrompt < this.reads) {
        this.readsThisPrompt += 1;
        response = {
          blocks: [
            {
              type: "toolCall",
              name: "read",
              arguments: { path: `part-${this.requests.length}.txt` },
            },
          ],
          usage,
        };
      } else {
        response = { blocks: [{ type: "text", text: "Read them all." }], usage };
      }
    }
    const events = scriptToEvents(scriptedResponseSchema.parse(response), this.info.id);
    return (async function* () {
      yield* events;
    })();
  }
}

const readTool = defineTool({
  name: "read",
  description: "Reads a file",
  parameters: z.object({ path: z.string() }),
  execute: ({ path }) => `${path}\n${"x".repeat(1_600)}`,
});

describe("compaction before the context guard", () => {
  it("starts below the guard's limit with room for the summary, in big and small windows", () => {
    const settings = resolveCompactionSettings();
    const cases = [
      { window: 200_000, maxOutput: 64_000 },
      { window: 128_000, maxOutput: 16_384 },
      { window: 32_000, maxOutput: 8_192 },
      { window: 4_096, maxOutput: 4_096 },
      { window: 3_000, maxOutput: 500 },
    ];
    for (const { window, maxOutput } of cases) {
      const model = { info: info(window, maxOutput) } as Model;
      const promptLimit = new ContextGuard({}, undefined).limitFor(model);
      const budget = compactionBudget(
        { contextWindow: window, promptLimit, maxOutputTokens: maxOutput },
        settings,
      );
      expect(budget.threshold, `${window}`).toBeLessThan(promptLimit);
      expect(budget.threshold, `${window}`).toBeGreaterThan(promptLimit / 2);
      // What a compaction leaves (summary and kept turns) is at most half the threshold.
      expect(budget.summaryTokens + budget.keepRecentTokens).toBeLessThanOrEqual(
        budget.threshold / 2 + 64,
      );
    }
    // The 200k window the issue names: the guard stops at 150,976, compaction at 135,879.
    expect(
      compactionBudget(
        { contextWindow: 200_000, promptLimit: 150_976, maxOutputTokens: 64_000 },
        DEFAULT_COMPACTION_SETTINGS,
      ),
    ).toEqual({ threshold: 135_879, keepRecentTokens: 20_000, summaryTokens: 13_107 });
  });

  it("keeps a configured reserve up to half the window", () => {
    const settings = resolveCompactionSettings({ reserveTokens: 500 });
    expect(
      compactionBudget({ contextWindow: 1_000, promptLimit: 700, maxOutputTokens: 100 }, settings)
        .threshold,
    ).toBe(500);
  });

  it("compacts twice across two prompts that pass the limit, and every request keeps its tools", async () => {
    const session = await memorySession();
    const model = new ReadingModel(info(4_096, 4_096), 6);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [readTool] });

    const first = await drain(agent.prompt("Read the parts"));
    const second = await drain(agent.prompt("Read them again"));

    for (const { result } of [first, second]) {
      expect(result).toMatchObject({ success: true });
      expect(result.overLimitRequests).toBeUndefined();
    }
    const events = [...first.events, ...second.events];
    expect(events.some((event) => event.type === "final_turn")).toBe(false);
    expect(events.some((event) => event.type === "context_guard")).toBe(false);
    const compacted = events.filter(
      (event) => event.type === "compaction" && event.status === "compacted",
    );
    expect(compacted.length).toBeGreaterThanOrEqual(2);
    expect(
      compacted.every((event) => event.type === "compaction" && event.reason === "threshold"),
    ).toBe(true);
    // Every request of the agent (not the summaries) carried the read tool.
    const agentRequests = model.requests.filter((r) => r.system !== SUMMARIZER_SYSTEM_PROMPT);
    expect(agentRequests.length).toBe(14);
    expect(agentRequests.every((r) => r.tools?.some((tool) => tool.name === "read"))).toBe(true);
    const entries = session.getEntries().filter((entry) => entry.type === "compaction");
    expect(entries.length).toBe(compacted.length);
    // The trail lists the files read, carried from one compaction to the next.
    const last = entries.at(-1) as { summary: string; details: { readFiles: string[] } };
    expect(last.summary).toMatch(/<read-files>\npart-/);
    expect(last.details.readFiles.length).toBeGreaterThan(1);
  });

  it("forces the final turn as the last resort, when compaction finds nothing to cut", async () => {
    const session = await memorySession();
    const model = new ReadingModel(info(3_000, 500), 0);
    const agent = new AgentSession({ targets: [{ model }], session, tools: [readTool] });
    const { events } = await drain(agent.prompt("y".repeat(12_000)));
    const kinds = events
      .filter((e) => ["compaction", "context_guard", "final_turn"].includes(e.type))
      .map((e) =>
        "status" in e ? `${e.type}:${e.status}` : "action" in e ? `${e.type}:${e.action}` : e.type,
      );
    expect(kinds.slice(0, 3)).toEqual([
      "compaction:nothing_to_compact",
      "context_guard:force_final",
      "final_turn",
    ]);
  });
});
