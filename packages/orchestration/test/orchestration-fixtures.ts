import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType, MemorySessionStore, type Session } from "@arbor/session-store";
import { defineAgent, type ModelTargetSpec } from "../src/definition/index.js";
import type { AgentNode } from "../src/orchestration/agent-tree.js";
import type { RunEvent } from "../src/orchestration/orchestration-events.js";

/** A folder of agent files written for one test; `remove()` deletes it. */
export async function agentFolder(files: Record<string, string>): Promise<{
  dir: string;
  path(name: string): string;
  remove(): Promise<void>;
}> {
  const dir = await mkdtemp(join(tmpdir(), "arbor-orchestration-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return {
    dir,
    path: (name) => join(dir, name),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** An agent file's text: front matter from `keys` (YAML flow values), then the body. */
export function agentFile(keys: Record<string, string>, body = "You help."): string {
  const lines = Object.entries(keys).map(([key, value]) => `${key}: ${value}`);
  return `---\n${lines.join("\n")}\n---\n${body}\n`;
}

/** Scripted models by model id (`scripted/<id>` targets), each with its own answers. */
export function scriptedModels(scripts: Record<string, readonly ScriptedResponseInput[]>): {
  models: (target: ModelTargetSpec) => ScriptedModel;
  model(id: string): ScriptedModel;
  store: MemorySessionStore;
} {
  const byId = new Map(
    Object.entries(scripts).map(([id, responses]) => [id, new ScriptedModel({ responses })]),
  );
  const model = (id: string) => {
    const found = byId.get(id);
    if (!found) throw new Error(`no scripted model ${id}`);
    return found;
  };
  return {
    models: (target) => model(typeof target === "string" ? target : (target.model ?? "")),
    model,
    store: new MemorySessionStore(),
  };
}

/** The custom entries of one type in a session, in file order. */
export function customData(session: Session, customType: string): unknown[] {
  return session
    .getEntries()
    .flatMap((entry) =>
      isEntryOfType(entry, "custom") && entry.customType === customType ? [entry.data] : [],
    );
}

/** Every event of a run's stream, once it ended. */
export async function collect(events: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const all: RunEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** A scripted answer that calls one tool. */
export const call = (name: string, args: Record<string, unknown>, id = "c1") => ({
  blocks: [{ type: "toolCall" as const, id, name, arguments: args }],
});

/** An agent given in code whose model is `scripted/<name>`, with sub-agents and destinations. */
export function node(
  name: string,
  agents: AgentNode[] = [],
  destinations: AgentNode[] = [],
): AgentNode {
  return {
    definition: defineAgent({ name, models: [`scripted/${name}`] }),
    file: "<inline>",
    advisors: [],
    destinations,
    handoff: undefined,
    agents,
  };
}
