import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadServerAgents, parseServerConfigText } from "../src/config/load-server-config.js";
import { serverRunEventSchema } from "../src/runs/server-run-event.js";
import { makeTestApp, newSession, type TestApp, waitForRun } from "./helpers/test-app.js";

// An agent file that names other agents answers over HTTP as a team: its children run
// through the same host, in sessions of their own, and stream with the run.

const agentFile = (keys: string, body: string) => `---\n${keys}\n---\n${body}\n`;

/** Each agent's answers, told apart by its system prompt (the agent file's body). */
function team(body: Record<string, unknown>): ScriptedResponseInput {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const system = JSON.stringify(messages.find((m) => m.role === "system")?.content ?? "");
  const called = messages.some((m) => m.role === "tool");
  const call = (name: string, args: Record<string, unknown>): ScriptedResponseInput => ({
    blocks: [{ type: "toolCall", name, arguments: args }],
  });
  if (system.includes("You lead the team.")) {
    return called ? "The team's answer." : call("agent__researcher", { prompt: "find it" });
  }
  if (system.includes("You criticise.")) return "Mind the edge cases.";
  if (system.includes("You research.")) return "Found it.";
  if (system.includes("You route.")) return call("router__handoff-to", { agent: "billing" });
  if (system.includes("You bill.")) return "Refunded.";
  return "unexpected request";
}

let dir: string;
let t: TestApp;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-trees-"));
  const files: Record<string, string> = {
    "agents/team.md": agentFile(
      "name: team\nmodels: [fake/fake-model]\nadvisors: [./critic.md]\nagents: [./researcher.md]",
      "You lead the team.",
    ),
    "agents/critic.md": agentFile("name: critic\nmodels: [fake/fake-model]", "You criticise."),
    "agents/researcher.md": agentFile(
      "name: researcher\nmodels: [fake/fake-model]",
      "You research.",
    ),
    "agents/desk.md": agentFile(
      "name: desk\nmodels: [fake/fake-model]\nrouter:\n  destinations: [./billing.md]",
      "You route.",
    ),
    "agents/billing.md": agentFile("name: billing\nmodels: [fake/fake-model]", "You bill."),
  };
  await mkdir(join(dir, "agents"));
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text);
  const configPath = join(dir, "server.yaml");
  const config = parseServerConfigText(
    [
      "providers:",
      "  fake: { api: openai-chat, apiKeyEnv: FAKE_KEY, baseURL: 'http://127.0.0.1:9' }",
      "agents:",
      "  - file: agents/team.md",
      "  - file: agents/desk.md",
    ].join("\n"),
    configPath,
  );
  const { agents } = await loadServerAgents(config, configPath, { FAKE_KEY: "test-key" });
  t = await makeTestApp({ fallback: team, agents });
});
afterEach(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The `data:` of every SSE message with an id (the run's events), parsed. */
function eventsOf(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n\n")
    .filter((block) => /^id: /m.test(block))
    .map((block) => {
      const data = block
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice("data: ".length);
      return JSON.parse(data ?? "{}") as Record<string, unknown>;
    });
}

describe("agent trees over HTTP", () => {
  it("runs an agent file's advisor and sub-agent: child sessions, events on SSE, usage rolled up", async () => {
    const id = await newSession(t);
    const started = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "team", prompt: "Solve it" },
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    const record = await waitForRun(t, runId);
    expect(record.status).toBe("completed");
    const result = record.result as {
      finalAgent: string;
      children: Array<{ agentPath: string; role: string; outcome: string; sessionId: string }>;
      usage: { input: number };
      rootUsage: { input: number };
    };
    expect(result.finalAgent).toBe("team");
    expect(result.children.map((c) => [c.agentPath, c.role, c.outcome])).toEqual([
      ["team:critic", "advisor", "succeeded"],
      ["team:researcher", "subagent", "succeeded"],
    ]);
    expect(result.usage.input).toBeGreaterThan(result.rootUsage.input);

    const text = await (await t.call("GET", `/v1/runs/${runId}/events`)).text();
    const events = eventsOf(text);
    for (const event of events) expect(serverRunEventSchema.safeParse(event).success).toBe(true);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((event) => event.runId === runId)).toBe(true);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "child_start")).toHaveLength(2);
    expect(types.filter((type) => type === "child_end")).toHaveLength(2);
    expect(types.at(-1)).toBe("orchestration_end");
    // The root's own events name the agent file's agent and the server's run.
    const own = events.find((event) => event.type === "turn_start") as {
      ancestry: { agentPath: string; runId: string };
    };
    expect(own.ancestry).toMatchObject({ agentPath: "team", runId });
    const child = events.find((event) => event.type === "child_start") as {
      parentRunId: string;
      childRunId: string;
    };
    expect(child.parentRunId).toBe(runId);
    expect(child.childRunId).not.toBe(runId);

    // The children's sessions are sessions of the store, linked to the run's session.
    const session = await t.deps.store.open(id, { tenant: t.alice.tenantId, readOnly: true });
    const recorded = session
      .getEntries()
      .filter((entry) => isEntryOfType(entry, "custom"))
      .map((entry) => (entry as { customType: string }).customType);
    expect(recorded.filter((type) => type === "arbor.orchestration.child")).toHaveLength(4);
    await session.close();
    const researcher = await t.deps.store.open(result.children[1]?.sessionId ?? "", {
      tenant: t.alice.tenantId,
      readOnly: true,
    });
    expect(researcher.getHeader().parentSession).toBeDefined();
    await researcher.close();
  });

  it("carries the caller's run ids as the ancestry of the run and of its children", async () => {
    const id = await newSession(t);
    const refused = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "team", prompt: "Solve it", parentRunId: "has spaces" },
    });
    expect(refused.status).toBe(400);
    const started = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "team", prompt: "Solve it", parentRunId: "caller-1", originRunId: "origin-7" },
    });
    const { runId } = (await started.json()) as { runId: string };
    expect((await waitForRun(t, runId)).status).toBe("completed");
    const events = eventsOf(await (await t.call("GET", `/v1/runs/${runId}/events`)).text());
    const own = events.filter(
      (event) =>
        typeof event.ancestry === "object" &&
        (event.ancestry as { agentPath: string }).agentPath === "team",
    );
    expect(own.length).toBeGreaterThan(0);
    for (const event of own) {
      expect(event.ancestry).toMatchObject({ runId, parentId: "caller-1", originId: "origin-7" });
    }
    // The children's own runs keep the request's origin.
    const session = await t.deps.store.open(id, { tenant: t.alice.tenantId, readOnly: true });
    const child = events.find((event) => event.type === "child_start") as {
      childSessionId: string;
    };
    await session.close();
    const childSession = await t.deps.store.open(child.childSessionId, {
      tenant: t.alice.tenantId,
      readOnly: true,
    });
    const ancestry = childSession
      .getEntries()
      .find(
        (entry) => (entry as { customType?: string }).customType === "arbor.orchestration.ancestry",
      );
    expect((ancestry as { data: Record<string, unknown> }).data).toMatchObject({
      originRunId: "origin-7",
      parentRunId: runId,
    });
    await childSession.close();
  });

  it("hands a router's request to its destination, which answers", async () => {
    const id = await newSession(t);
    const started = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "desk", prompt: "My money back" },
    });
    const { runId } = (await started.json()) as { runId: string };
    const record = await waitForRun(t, runId);
    expect(record.status).toBe("completed");
    expect(record.result).toMatchObject({ finalAgent: "desk:billing", success: true });
    const events = eventsOf(await (await t.call("GET", `/v1/runs/${runId}/events`)).text());
    expect(events.find((event) => event.type === "handoff")).toMatchObject({
      role: "destination",
      from: "desk",
      to: "desk:billing",
    });
    const answer = events
      .filter((event) => event.type === "text_delta")
      .map((event) => event.delta)
      .join("");
    expect(answer).toContain("Refunded.");
  });
});
