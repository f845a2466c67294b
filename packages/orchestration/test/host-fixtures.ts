import { ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { MemorySessionStore } from "@arbor/session-store";
import { type AgentDefinition, defineAgent } from "../src/definition/index.js";
import type { AgentHostOptions } from "../src/host/host-options.js";

/** What a recording extension saw, in order: `start:<reason>:<session>` and `shutdown:<session>`. */
export type LifecycleLog = string[];

/** An extension runner with one extension that records the session lifecycle. */
export async function recordingExtensions(): Promise<{
  runner: ExtensionRunner;
  log: LifecycleLog;
}> {
  const log: LifecycleLog = [];
  const runner = new ExtensionRunner({ cwd: process.cwd(), includeProject: false });
  await runner.addExtension("recorder", (arbor) => {
    arbor.on("session_start", (event) => {
      log.push(`start:${event.reason}:${event.sessionId}`);
    });
    arbor.on("session_shutdown", (event) => {
      log.push(`shutdown:${event.sessionId}`);
    });
  });
  return { runner, log };
}

/** Host options whose agent is a definition (tests build new definitions from it). */
export type ScriptedHostOptions = AgentHostOptions & { agent: AgentDefinition };

/** A test agent whose every target is one scripted model, on a memory store unless told otherwise. */
export function scriptedHostOptions(
  responses: readonly ScriptedResponseInput[],
  overrides: Partial<AgentHostOptions> = {},
): { options: ScriptedHostOptions; model: ScriptedModel; store: MemorySessionStore } {
  const model = new ScriptedModel({ responses });
  const store = new MemorySessionStore();
  const options = {
    store,
    create: { cwd: "/project" },
    agent: defineAgent({
      name: "helper",
      systemPrompt: "You help.",
      models: ["scripted/scripted"],
    }),
    models: () => model,
    agentOptions: { retryDelayMs: 1, sleep: async () => {} },
    ...overrides,
  } as ScriptedHostOptions;
  return { options, model, store };
}
