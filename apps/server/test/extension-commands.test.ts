import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  dataOf,
  type ExtensionServer,
  follow,
  json,
  newSession,
  startExtensionServer,
} from "./helpers/extension-server.js";
import { idsOf } from "./helpers/sse-client.js";

let s: ExtensionServer;
beforeAll(async () => {
  s = await startExtensionServer();
}, 30_000);
afterAll(() => s.close());

async function command(sessionId: string, name: string, body: Record<string, unknown>) {
  return s.call("POST", `/v1/sessions/${sessionId}/commands/${name}`, body);
}

async function entries(sessionId: string): Promise<Record<string, unknown>[]> {
  const res = await s.call("GET", `/v1/sessions/${sessionId}/entries?limit=200`);
  return (await json(res)).entries as Record<string, unknown>[];
}

describe("extension commands", { timeout: 30_000 }, () => {
  it("lists the commands of an agent's extensions, none for an agent without, 404 for an unknown agent", async () => {
    const res = await s.call("GET", "/v1/agents/planner/commands");
    expect(res.status).toBe(200);
    const body = (await json(res)) as { agent: string; commands: { name: string }[] };
    expect(body.agent).toBe("planner");
    expect(body.commands.map((c) => c.name)).toEqual([
      "plan",
      "todo",
      "todos",
      "ask",
      "custom",
      "fresh",
    ]);
    expect(body.commands[0]).toEqual({
      name: "plan",
      description: expect.any(String),
      extension: "plan-mode.ts",
    });
    expect((await json(await s.call("GET", "/v1/agents/helper/commands"))).commands).toEqual([]);
    const unknown = await s.call("GET", "/v1/agents/nobody/commands");
    expect(unknown.status).toBe(404);
    expect(((await json(unknown)).error as { code: string }).code).toBe("agent_not_found");
  });

  it("a command that returns nothing runs as a run without a prompt, and stores what it wrote", async () => {
    const sessionId = await newSession(s);
    const res = await command(sessionId, "todo", { agent: "planner", args: "add write the tests" });
    expect(res.status).toBe(202);
    const { runId, eventsUrl } = (await json(res)) as { runId: string; eventsUrl: string };
    expect(eventsUrl).toBe(`/v1/runs/${runId}/events`);
    const reading = await follow(s, runId);
    expect(dataOf(reading, "command_end")).toEqual([
      expect.objectContaining({ name: "todo", status: "done" }),
    ]);
    expect(dataOf(reading, "turn_start")).toEqual([]);
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    expect(run.status).toBe("completed");
    expect(run.result).toBeUndefined();
    const stored = await entries(sessionId);
    expect(
      stored.some((e) => e.type === "custom" && JSON.stringify(e).includes("write the tests")),
    ).toBe(true);
  });

  it("a command's returned text is sent as the prompt in the same run", async () => {
    const sessionId = await newSession(s);
    const res = await command(sessionId, "plan", { agent: "planner", args: "on Design the cache" });
    expect(res.status).toBe(202);
    const { runId } = (await json(res)) as { runId: string };
    const reading = await follow(s, runId);
    expect(dataOf(reading, "ui_notify").map((n) => n.message)).toEqual(["Plan mode on: read-only"]);
    expect(dataOf(reading, "command_end")).toEqual([
      expect.objectContaining({ name: "plan", status: "prompt" }),
    ]);
    const text = dataOf(reading, "text_delta")
      .map((e) => e.delta)
      .join("");
    expect(text).toBe("answer to: Design the cache");
    const ids = idsOf(reading);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const run = await json(await s.call("GET", `/v1/runs/${runId}`));
    expect(run.status).toBe("completed");
    expect((run.result as { success: boolean }).success).toBe(true);
    const users = (await entries(sessionId)).filter(
      (e) => e.type === "message" && (e.message as { role: string }).role === "user",
    );
    expect(users).toHaveLength(1);
  });

  it("a command that moves to a new session says so; the new session is the tenant's and starts with the returned prompt", async () => {
    const sessionId = await newSession(s);
    const first = await s.call("POST", `/v1/sessions/${sessionId}/runs`, {
      agent: "planner",
      prompt: "Build the parser",
    });
    await follow(s, ((await json(first)) as { runId: string }).runId);
    const res = await command(sessionId, "fresh", { agent: "planner", args: "tests first" });
    const { runId } = (await json(res)) as { runId: string };
    const reading = await follow(s, runId);
    const [switched] = dataOf(reading, "session_switched");
    const fresh = switched?.sessionId as string;
    expect(fresh).toBeTruthy();
    expect(fresh).not.toBe(sessionId);
    expect(dataOf(reading, "ui_notify").map((n) => n.message)).toEqual([
      `Started fresh in ${fresh}, from ${sessionId}`,
    ]);
    expect(dataOf(reading, "command_end")[0]?.status).toBe("prompt");
    expect((await s.call("GET", `/v1/sessions/${fresh}`)).status).toBe(200);
    expect((await s.call("GET", `/v1/sessions/${fresh}`, undefined, s.otherKey)).status).toBe(404);
    const [prompt] = (await entries(fresh)).filter(
      (e) => e.type === "message" && (e.message as { role: string }).role === "user",
    );
    expect(JSON.stringify(prompt)).toContain("Build the parser");
    expect(JSON.stringify(prompt)).toContain("Focus now on: tests first");
  });

  it("refuses unknown commands, other agents' commands, bad names and bodies, other tenants' sessions and busy sessions", async () => {
    const sessionId = await newSession(s);
    const codeOf = async (res: Response) => [
      res.status,
      ((await json(res)).error as { code: string } | undefined)?.code,
    ];
    expect(await codeOf(await command(sessionId, "nope", { agent: "planner" }))).toEqual([
      404,
      "command_not_found",
    ]);
    expect(await codeOf(await command(sessionId, "plan", { agent: "helper" }))).toEqual([
      404,
      "command_not_found",
    ]);
    expect(await codeOf(await command(sessionId, "plan", { agent: "nobody" }))).toEqual([
      404,
      "agent_not_found",
    ]);
    expect(await codeOf(await command(sessionId, "..%2Fetc", { agent: "planner" }))).toEqual([
      400,
      "invalid_request",
    ]);
    expect(await codeOf(await command(sessionId, "plan", { agent: "planner", args: 7 }))).toEqual([
      400,
      "invalid_request",
    ]);
    expect(
      await codeOf(await command(sessionId, "plan", { agent: "planner", sudo: true })),
    ).toEqual([400, "invalid_request"]);
    const foreign = await s.call(
      "POST",
      `/v1/sessions/${sessionId}/commands/todos`,
      { agent: "planner" },
      s.otherKey,
    );
    expect(await codeOf(foreign)).toEqual([404, "not_found"]);
    // A run that waits for a UI answer holds the session: a command meanwhile is refused.
    const busy = await newSession(s);
    const asking = await command(busy, "ask", { agent: "planner" });
    const { runId } = (await json(asking)) as { runId: string };
    const second = await command(busy, "todos", { agent: "planner" });
    expect(await codeOf(second)).toEqual([409, "session_busy"]);
    await s.call("POST", `/v1/runs/${runId}/abort`);
    await follow(s, runId);
  });
});
