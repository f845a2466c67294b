import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { findPgBindir, PgCluster } from "./helpers/pg-cluster.js";
import { makeTestApp, newSession, type TestApp, waitForRun } from "./helpers/test-app.js";

const bindir = findPgBindir();
if (!bindir)
  console.warn("SKIPPING the PostgreSQL server tests: initdb, pg_ctl and postgres not found");

let cluster: PgCluster;
let t: TestApp;
beforeAll(async () => {
  if (!bindir) return;
  cluster = await PgCluster.start(bindir);
  const store = await PostgresSessionStore.connect({ connectionString: cluster.connectionString });
  t = await makeTestApp({ fallback: answerByPrompt, store });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await cluster?.destroy();
});

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

describe.skipIf(!bindir)("the server on the PostgreSQL store", () => {
  it("runs a prompt, streams it, and serves the tree, labels, forks and deletes", async () => {
    const id = await newSession(t);
    const started = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "stream 12" },
    });
    const { runId } = (await json(started)) as { runId: string };
    expect((await waitForRun(t, runId)).status).toBe("completed");
    const busy = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "slow 30" },
    });
    const second = await t.call("POST", `/v1/sessions/${id}/runs`, {
      json: { agent: "helper", prompt: "x" },
    });
    expect(second.status).toBe(409);
    await waitForRun(t, ((await json(busy)) as { runId: string }).runId);
    const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
    const nodes = tree.nodes as Array<{ entry: { id: string; type: string } }>;
    expect(nodes.filter((n) => n.entry.type === "message")).toHaveLength(4);
    const first = nodes[0]?.entry.id as string;
    expect(
      (await t.call("PUT", `/v1/sessions/${id}/entries/${first}/label`, { json: { label: "a" } }))
        .status,
    ).toBe(200);
    const fork = await t.call("POST", `/v1/sessions/${id}/fork`, { json: { entryId: first } });
    expect(fork.status).toBe(201);
    const list = await json(await t.call("GET", "/v1/sessions"));
    expect((list.sessions as unknown[]).length).toBe(2);
    expect((await t.call("GET", `/v1/sessions/${id}`, { key: t.bob.key })).status).toBe(404);
    expect((await t.call("DELETE", `/v1/sessions/${id}`, { key: t.bob.key })).status).toBe(404);
    expect((await t.call("DELETE", `/v1/sessions/${id}`)).status).toBe(204);
    expect((await t.call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect((await t.call("GET", "/ready", { key: null })).status).toBe(200);
  }, 60_000);
});
