import { type ModelInfo, modelInfoSchema } from "@arbor/providers";
import {
  SCRIPTED_MODEL_INFO,
  ScriptedModel,
  type ScriptedResponseInput,
} from "@arbor/providers/test";
import { MemorySessionStorage, Session, type SessionEntry } from "@arbor/session-store";
import { z } from "zod";
import {
  type AgentEvent,
  type AgentEventPayload,
  type AgentRun,
  defineTool,
} from "../src/index.js";

/** A scripted model reporting its own provider name, so failover tests can tell them apart. */
export function scripted(provider: string, responses: ScriptedResponseInput[]): ScriptedModel {
  const info: ModelInfo = modelInfoSchema.parse({
    ...SCRIPTED_MODEL_INFO,
    provider,
    id: `${provider}-model`,
  });
  return new ScriptedModel({ responses, info });
}

/**
 * A scripted model with its own context window (and 500 output tokens), for the context
 * guard and overflow failover: the guard's limit is window − 500 (buffer) − 500 (output).
 */
export function windowed(
  provider: string,
  contextWindow: number,
  responses: ScriptedResponseInput[],
): ScriptedModel {
  const info: ModelInfo = modelInfoSchema.parse({
    ...SCRIPTED_MODEL_INFO,
    provider,
    id: `${provider}-model`,
    contextWindow,
    maxOutputTokens: 500,
  });
  return new ScriptedModel({ responses, info });
}

/** A new in-memory session with deterministic ids. */
export async function memorySession(): Promise<Session> {
  let next = 0;
  return Session.open(new MemorySessionStorage(), {
    create: true,
    now: () => 1_000,
    generateId: () => `e${++next}`,
  });
}

/**
 * Drains a run: every event in order (without the `runId`/`seq`/`ancestry` envelope,
 * checked here: every event carries the run's id, the sequence 1, 2, 3, … and the same
 * ancestry naming the run), then the result.
 */
export async function drain(run: AgentRun) {
  const stamped: AgentEvent[] = [];
  for await (const event of run.events) stamped.push(event);
  const result = await run.result;
  const first = stamped[0]?.ancestry;
  const events = stamped.map(({ runId, seq, ancestry, ...payload }, index) => {
    if (runId !== run.runId || seq !== index + 1) {
      throw new Error(
        `event ${index} carries run ${runId} seq ${seq}; expected ${run.runId} seq ${index + 1}`,
      );
    }
    if (ancestry.runId !== run.runId || JSON.stringify(ancestry) !== JSON.stringify(first)) {
      throw new Error(`event ${index} carries ancestry ${JSON.stringify(ancestry)}`);
    }
    return payload as AgentEventPayload;
  });
  if (result.runId !== run.runId) throw new Error(`the result names run ${result.runId}`);
  return { events, stamped, result };
}

/** The entries of a session as `type:role/customType` with their parents, in file order. */
export function shape(session: Session): Array<[string, string, string | null]> {
  return session.getEntries().map((entry) => [entry.id, label(entry), entry.parentId]);
}

/** One entry's kind: `message:<role>`, `custom:<customType>`, or its type. */
export function label(entry: SessionEntry): string {
  const record = entry as SessionEntry & {
    message?: { role: string };
    customType?: string;
  };
  if (entry.type === "message") return `message:${record.message?.role}`;
  if (entry.type === "custom" || entry.type === "custom_message") {
    return `${entry.type}:${record.customType}`;
  }
  return entry.type;
}

/** The message stored in an entry. */
export function messageOf(session: Session, id: string): Record<string, unknown> {
  const entry = session.getEntry(id) as { message?: Record<string, unknown> } | undefined;
  if (!entry?.message) throw new Error(`entry ${id} holds no message`);
  return entry.message;
}

/** A tool adding two numbers. */
export const addTool = defineTool({
  name: "add",
  description: "Adds two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

/** Sleeps recorded instead of waited. */
export function recordingSleep() {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}
