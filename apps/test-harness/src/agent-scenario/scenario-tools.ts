import { type AgentTool, defineTool } from "@arbor/orchestration";
import { z } from "zod";
import type { ScenarioTool } from "./agent-scenario-schema.js";

/** Tool calls of a scenario, in the order they started and finished. */
export class ToolCallLog {
  /** `name(argsJSON)` of every call, in start order. */
  readonly started: string[] = [];
  /** `name(argsJSON)` of every call, in finish order (throws and timeouts included). */
  readonly finished: string[] = [];
  /** The most calls running at the same moment. */
  maxConcurrent = 0;
  #running = 0;
  readonly #startListeners = new Set<(started: number) => void>();

  /** Calls `listener` with the number of calls started so far each time one starts. */
  onStart(listener: (started: number) => void): () => void {
    this.#startListeners.add(listener);
    return () => this.#startListeners.delete(listener);
  }

  /** Notes a call starting; returns the function that notes its end. */
  begin(call: string): () => void {
    this.started.push(call);
    for (const listener of this.#startListeners) listener(this.started.length);
    this.#running++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.#running);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#running--;
      this.finished.push(call);
    };
  }
}

const BASE_TYPES = {
  string: () => z.string(),
  number: () => z.number(),
  integer: () => z.number().int(),
  boolean: () => z.boolean(),
} as const;

function parameterSchema(parameters: ScenarioTool["parameters"]): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, type] of Object.entries(parameters)) {
    const optional = type.endsWith("?");
    const base = BASE_TYPES[type.replace("?", "") as keyof typeof BASE_TYPES]();
    shape[name] = optional ? base.optional() : base;
  }
  return z.object(shape);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Builds the `AgentTool`s a scenario declares. Each call plays the next scripted behaviour
 * (the last one repeats) and is recorded in `log` as `name(argsJSON)`.
 */
export function buildScenarioTools(
  declared: readonly ScenarioTool[],
  log: ToolCallLog,
): AgentTool[] {
  return declared.map((tool) => {
    let calls = 0;
    return defineTool({
      name: tool.name,
      description: tool.description,
      parameters: parameterSchema(tool.parameters),
      ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
      execute: async (args, context) => {
        const behaviour = tool.behaviour[Math.min(calls, tool.behaviour.length - 1)] ?? {};
        calls++;
        const argsJson = JSON.stringify(args);
        const end = log.begin(`${tool.name}(${argsJson})`);
        try {
          if (behaviour.sleepMs !== undefined) await sleep(behaviour.sleepMs, context.signal);
          if (behaviour.throws !== undefined) throw new Error(behaviour.throws);
          if (behaviour.returnsChars !== undefined) return "x".repeat(behaviour.returnsChars);
          return (behaviour.returns ?? "ok").replaceAll("{{args}}", argsJson);
        } finally {
          end();
        }
      },
    });
  });
}
