import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTestApp, newSession, type TestApp, waitForRun } from "./helpers/test-app.js";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ fallback: () => "The answer." });
});
afterEach(() => t.close());

/** A session with one exchange: user prompt and assistant answer. */
async function sessionWithExchange(): Promise<string> {
  const id = await newSession(t);
  const res = await t.call("POST", `/v1/sessions/${id}/runs`, {
    json: { agent: "helper", prompt: "First question" },
  });
  const { runId } = (await res.json()) as { runId: string };
  expect((await waitForRun(t, runId)).status).toBe("completed");
  return id;
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

describe("sessions", () => {
  it("creates a session with a title, gets it and lists it", async () => {
    const created = await t.call("POST", "/v1/sessions", {
      json: { cwd: "/srv/a", title: "Plan" },
    });
    expect(created.status).toBe(201);
    const summary = await json(created);
    expect(summary).toMatchObject({ cwd: "/srv/a", title: "Plan", messageCount: 0 });
    const got = await json(await t.call("GET", `/v1/sessions/${summary.id}`));
    expect(got).toMatchObject({
      id: summary.id,
      cwd: "/srv/a",
      title: "Plan",
      leafId: expect.any(String),
    });
    expect(got.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 });
    const list = await json(await t.call("GET", "/v1/sessions"));
    expect((list.sessions as Array<{ id: string }>).map((s) => s.id)).toEqual([summary.id]);
  });

  it("pages the list with a cursor and filters by search text and cwd", async () => {
    for (const [cwd, title] of [
      ["/srv/a", "apples"],
      ["/srv/b", "bananas"],
      ["/srv/a", "apricots"],
    ]) {
      await t.call("POST", "/v1/sessions", { json: { cwd, title } });
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await json(await t.call("GET", "/v1/sessions?limit=2"));
    expect((first.sessions as unknown[]).length).toBe(2);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await json(
      await t.call(
        "GET",
        `/v1/sessions?limit=2&cursor=${encodeURIComponent(first.nextCursor as string)}`,
      ),
    );
    expect((second.sessions as unknown[]).length).toBe(1);
    expect(second.nextCursor).toBeUndefined();
    const searched = await json(await t.call("GET", "/v1/sessions?search=AP"));
    expect((searched.sessions as Array<{ title: string }>).map((s) => s.title).sort()).toEqual([
      "apples",
      "apricots",
    ]);
    const byCwd = await json(await t.call("GET", "/v1/sessions?cwd=%2Fsrv%2Fb"));
    expect((byCwd.sessions as Array<{ title: string }>).map((s) => s.title)).toEqual(["bananas"]);
  });

  it("answers a bad list query with a 400 naming the field", async () => {
    const res = await t.call("GET", "/v1/sessions?limit=0");
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: { code: "invalid_request", message: expect.stringMatching(/^query\.limit: /) },
    });
    const cursor = await t.call("GET", "/v1/sessions?cursor=garbage");
    expect(cursor.status).toBe(400);
    expect((await json(cursor)).error).toMatchObject({ code: "invalid_request" });
    const unknown = await t.call("GET", "/v1/sessions?color=red");
    expect(unknown.status).toBe(400);
    expect(((await json(unknown)).error as { message: string }).message).toContain("color");
  });

  it("sets and clears the title", async () => {
    const id = await sessionWithExchange();
    const set = await t.call("PUT", `/v1/sessions/${id}/title`, { json: { title: "  Named  " } });
    expect(set.status).toBe(200);
    expect(await json(set)).toEqual({ title: "Named" });
    const cleared = await t.call("DELETE", `/v1/sessions/${id}/title`);
    expect(await json(cleared)).toEqual({ title: "First question" });
    const blank = await t.call("PUT", `/v1/sessions/${id}/title`, { json: { title: "   " } });
    expect(blank.status).toBe(400);
    expect((await json(blank)).error).toMatchObject({ code: "invalid_request" });
  });

  it("regenerates the title with the agent's model; a failing model leaves it as it was", async () => {
    const id = await sessionWithExchange();
    t.fake.script("A generated title");
    const res = await t.call("POST", `/v1/sessions/${id}/title/generate`);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ title: "A generated title" });
    expect((await json(await t.call("GET", `/v1/sessions/${id}`))).title).toBe("A generated title");
    t.fake.script({ error: { kind: "model_error", status: 501 } });
    const failed = await json(
      await t.call("POST", `/v1/sessions/${id}/title/generate`, { json: { agent: "second" } }),
    );
    expect(failed).toEqual({ title: "A generated title", error: expect.any(String) });
    const unknown = await t.call("POST", `/v1/sessions/${id}/title/generate`, {
      json: { agent: "ghost" },
    });
    expect(unknown.status).toBe(404);
  });

  it("deletes a session: it is gone from get and list", async () => {
    const id = await newSession(t);
    const res = await t.call("DELETE", `/v1/sessions/${id}`);
    expect(res.status).toBe(204);
    const got = await t.call("GET", `/v1/sessions/${id}`);
    expect(got.status).toBe(404);
    expect(await json(got)).toEqual({
      error: { code: "not_found", message: `no session "${id}"` },
    });
    expect((await json(await t.call("GET", "/v1/sessions"))).sessions).toEqual([]);
    expect((await t.call("DELETE", `/v1/sessions/${id}`)).status).toBe(404);
  });

  it("forks at the leaf and at an entry", async () => {
    const id = await sessionWithExchange();
    const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const nodes = tree.nodes as Array<{ entry: { id: string; type: string } }>;
    const user = nodes.find((n) => n.entry.type === "message") as { entry: { id: string } };
    const atLeaf = await t.call("POST", `/v1/sessions/${id}/fork`);
    expect(atLeaf.status).toBe(201);
    const fork = await json(atLeaf);
    expect(fork.id).not.toBe(id);
    expect(fork.messageCount).toBe(2);
    const atUser = await json(
      await t.call("POST", `/v1/sessions/${id}/fork`, { json: { entryId: user.entry.id } }),
    );
    expect(atUser.messageCount).toBe(1);
    const missing = await t.call("POST", `/v1/sessions/${id}/fork`, {
      json: { entryId: "deadbeef" },
    });
    expect(missing.status).toBe(404);
    expect((await json(missing)).error).toMatchObject({ code: "entry_not_found" });
  });
});

describe("session tree", () => {
  it("gives the tree with labels, the entries paged, the path and the context", async () => {
    const id = await sessionWithExchange();
    const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const nodes = tree.nodes as Array<{
      entry: { id: string; type: string; parentId: string | null };
    }>;
    const messages = nodes.filter((n) => n.entry.type === "message");
    expect(messages).toHaveLength(2);
    const [user, answer] = messages as [(typeof nodes)[0], (typeof nodes)[0]];
    expect(tree.leafId).toBe(answer.entry.id);

    const label = await t.call("PUT", `/v1/sessions/${id}/entries/${user.entry.id}/label`, {
      json: { label: "start" },
    });
    expect(await json(label)).toEqual({ entryId: user.entry.id, label: "start" });
    const labelled = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const node = (labelled.nodes as Array<{ entry: { id: string }; label?: string }>).find(
      (n) => n.entry.id === user.entry.id,
    );
    expect(node?.label).toBe("start");
    const cleared = await t.call("DELETE", `/v1/sessions/${id}/entries/${user.entry.id}/label`);
    expect(await json(cleared)).toEqual({ entryId: user.entry.id });

    const page1 = await json(await t.call("GET", `/v1/sessions/${id}/entries?limit=2`));
    expect((page1.entries as unknown[]).length).toBe(2);
    const page2 = await json(
      await t.call(
        "GET",
        `/v1/sessions/${id}/entries?limit=100&cursor=${page1.nextCursor as string}`,
      ),
    );
    expect((page1.entries as unknown[]).length + (page2.entries as unknown[]).length).toBe(
      (labelled.nodes as unknown[]).length + 1,
    );

    const path = await json(await t.call("GET", `/v1/sessions/${id}/path?leafId=${user.entry.id}`));
    expect((path.entries as Array<{ id: string }>).at(-1)?.id).toBe(user.entry.id);
    const context = await json(await t.call("GET", `/v1/sessions/${id}/context`));
    expect((context.messages as Array<{ role: string }>).map((m) => m.role)).toEqual([
      "user",
      "assistant",
    ]);
    const early = await json(
      await t.call("GET", `/v1/sessions/${id}/context?leafId=${user.entry.id}`),
    );
    expect((early.messages as Array<{ role: string }>).map((m) => m.role)).toEqual(["user"]);

    const noEntry = await t.call("GET", `/v1/sessions/${id}/path?leafId=deadbeef`);
    expect(noEntry.status).toBe(404);
    expect((await json(noEntry)).error).toMatchObject({ code: "entry_not_found" });
    const noLabelTarget = await t.call("PUT", `/v1/sessions/${id}/entries/deadbeef/label`, {
      json: { label: "x" },
    });
    expect(noLabelTarget.status).toBe(404);
  });

  it("navigates the leaf back, with and without a branch summary", async () => {
    const id = await sessionWithExchange();
    const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const user = (tree.nodes as Array<{ entry: { id: string; type: string } }>).find(
      (n) => n.entry.type === "message",
    ) as { entry: { id: string } };
    const moved = await t.call("POST", `/v1/sessions/${id}/navigate`, {
      json: { entryId: user.entry.id },
    });
    expect(moved.status).toBe(200);
    expect(await json(moved)).toEqual({ oldLeafId: tree.leafId, newLeafId: user.entry.id });
    expect((await json(await t.call("GET", `/v1/sessions/${id}`))).leafId).toBe(user.entry.id);

    const summarized = await json(
      await t.call("POST", `/v1/sessions/${id}/navigate`, {
        json: { entryId: null, summarize: true },
      }),
    );
    expect(summarized.summaryEntryId).toEqual(expect.any(String));
    expect(summarized.newLeafId).toBe(summarized.summaryEntryId);

    const unknownAgent = await t.call("POST", `/v1/sessions/${id}/navigate`, {
      json: { entryId: null, agent: "nobody" },
    });
    expect(unknownAgent.status).toBe(404);
    expect((await json(unknownAgent)).error).toMatchObject({ code: "agent_not_found" });
  });

  it("compacts on request", async () => {
    const id = await sessionWithExchange();
    const res = await t.call("POST", `/v1/sessions/${id}/compact`, {
      json: { instructions: "keep it short" },
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(["compacted", "nothing_to_compact"]).toContain(body.status);
  });

  it("exports the session as self-contained HTML", async () => {
    const id = await sessionWithExchange();
    const res = await t.call("GET", `/v1/sessions/${id}/export`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="session-${id}.html"`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/connect-src|https?:/);
    const html = await res.text();
    expect(html).toContain("First question");
    expect(html).toContain("The answer.");
  });
});

describe("health", () => {
  it("answers /health and /ready without a key", async () => {
    expect(await json(await t.call("GET", "/health", { key: null }))).toEqual({
      status: "ok",
      version: "1.2.3",
    });
    const ready = await t.call("GET", "/ready", { key: null });
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ status: "ready" });
  });

  it("answers /ready with 503 when the store cannot be reached", async () => {
    t.deps.ready = async () => {
      throw new Error("connection refused at 10.0.0.1");
    };
    const { createApp } = await import("../src/index.js");
    const res = await createApp(t.deps).request("/ready");
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({
      error: { code: "not_ready", message: "the session store cannot be reached" },
    });
    expect(body).not.toContain("10.0.0.1");
  });

  it("answers an unknown route with a JSON 404 naming it", async () => {
    const res = await t.call("POST", "/nope", { key: null });
    expect(res.status).toBe(404);
    expect(await json(res)).toEqual({
      error: { code: "not_found", message: "no route for POST /nope" },
    });
  });
});
