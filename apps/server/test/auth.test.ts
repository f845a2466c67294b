import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import {
  ADMIN_KEY,
  makeTestApp,
  newSession,
  type TestApp,
  waitForRun,
} from "./helpers/test-app.js";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ fallback: answerByPrompt });
});
afterEach(() => t.close());

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** Alice's session with one finished run, and what it holds now. */
async function aliceSession() {
  const id = await newSession(t);
  const res = await t.call("POST", `/v1/sessions/${id}/runs`, {
    json: { agent: "helper", prompt: "hello" },
  });
  const runId = ((await json(res)) as { runId: string }).runId;
  await waitForRun(t, runId);
  const tree = await json(await t.call("GET", `/v1/sessions/${id}/tree`));
  const entryId = (tree.nodes as Array<{ entry: { id: string } }>)[0]?.entry.id as string;
  return { id, runId, entryId, snapshot: await snapshot(id) };
}

/** Everything stored about a session, as its owner reads it. */
async function snapshot(id: string): Promise<string> {
  const detail = await json(await t.call("GET", `/v1/sessions/${id}`));
  const entries = await json(await t.call("GET", `/v1/sessions/${id}/entries?limit=1000`));
  return JSON.stringify({ detail, entries });
}

/** Every route that names a session or a run, with a body where it takes one. */
function routesFor(ids: { id: string; runId: string; entryId: string }) {
  const { id, runId, entryId } = ids;
  return [
    ["GET", `/v1/sessions/${id}`],
    ["DELETE", `/v1/sessions/${id}`],
    ["PUT", `/v1/sessions/${id}/title`, { title: "stolen" }],
    ["DELETE", `/v1/sessions/${id}/title`],
    ["POST", `/v1/sessions/${id}/title/generate`, {}],
    ["POST", `/v1/sessions/${id}/fork`, {}],
    ["GET", `/v1/sessions/${id}/tree`],
    ["GET", `/v1/sessions/${id}/entries`],
    ["GET", `/v1/sessions/${id}/path`],
    ["GET", `/v1/sessions/${id}/context`],
    ["PUT", `/v1/sessions/${id}/entries/${entryId}/label`, { label: "x" }],
    ["DELETE", `/v1/sessions/${id}/entries/${entryId}/label`],
    ["POST", `/v1/sessions/${id}/navigate`, { entryId: null }],
    ["POST", `/v1/sessions/${id}/compact`, {}],
    ["GET", `/v1/sessions/${id}/export`],
    ["POST", `/v1/sessions/${id}/runs`, { agent: "helper", prompt: "steal" }],
    ["GET", `/v1/runs/${runId}`],
    ["GET", `/v1/runs/${runId}/events`],
    ["POST", `/v1/runs/${runId}/stop`],
    ["POST", `/v1/runs/${runId}/abort`],
  ] as const;
}

describe("keys", () => {
  it("refuses requests without a key, with a malformed header, an unknown key or a revoked key", async () => {
    const id = await newSession(t);
    const cases: Array<[Record<string, string>, string]> = [
      [{}, "unauthorized"],
      [{ authorization: "Basic abc" }, "unauthorized"],
      [{ authorization: "Bearer" }, "unauthorized"],
      [{ authorization: "Bearer a b" }, "unauthorized"],
      [{ authorization: `Bearer ${"k".repeat(600)}` }, "unauthorized"],
      [{ authorization: "Bearer arb_unknown" }, "invalid_key"],
      [{ authorization: `Bearer ${ADMIN_KEY}` }, "invalid_key"],
    ];
    for (const [headers, code] of cases) {
      const res = await t.call("GET", `/v1/sessions/${id}`, { key: null, headers });
      expect(res.status).toBe(401);
      expect((await json(res)).error).toMatchObject({ code });
    }
    const keys = await json(
      await t.call("GET", `/v1/admin/tenants/${t.alice.tenantId}/keys`, { key: ADMIN_KEY }),
    );
    const keyId = (keys.keys as Array<{ id: string }>)[0]?.id;
    const revoked = await t.call("DELETE", `/v1/admin/tenants/${t.alice.tenantId}/keys/${keyId}`, {
      key: ADMIN_KEY,
    });
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).revokedAt).toEqual(expect.any(String));
    const after = await t.call("GET", `/v1/sessions/${id}`);
    expect(after.status).toBe(401);
    expect((await json(after)).error).toMatchObject({ code: "invalid_key" });
  });

  it("lets the admin key create tenants and keys; keys are stored only hashed", async () => {
    const tenant = await t.call("POST", "/v1/admin/tenants", {
      key: ADMIN_KEY,
      json: { name: "carol" },
    });
    expect(tenant.status).toBe(201);
    const { id: tenantId } = (await json(tenant)) as { id: string };
    const created = await t.call("POST", `/v1/admin/tenants/${tenantId}/keys`, {
      key: ADMIN_KEY,
      json: { label: "ci" },
    });
    expect(created.status).toBe(201);
    const { key } = (await json(created)) as { key: string };
    expect(key).toMatch(/^arb_[A-Za-z0-9_-]{43}$/);
    const listed = JSON.stringify(
      await json(await t.call("GET", `/v1/admin/tenants/${tenantId}/keys`, { key: ADMIN_KEY })),
    );
    expect(listed).not.toContain(key);
    expect(listed).not.toContain("hash");
    const sessions = await t.call("GET", "/v1/sessions", { key });
    expect(sessions.status).toBe(200);
    expect((await json(sessions)).sessions).toEqual([]);
    expect(
      (await json(await t.call("GET", "/v1/admin/tenants", { key: ADMIN_KEY }))).tenants,
    ).toHaveLength(3);
  });

  it("refuses admin routes with a tenant key or no admin key configured", async () => {
    const tenantKey = await t.call("GET", "/v1/admin/tenants", { key: t.alice.key });
    expect(tenantKey.status).toBe(401);
    expect((await json(tenantKey)).error).toMatchObject({ code: "invalid_key" });
    t.deps.adminKey = undefined;
    const { createApp } = await import("../src/index.js");
    const res = await createApp(t.deps).request("/v1/admin/tenants", {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(res.status).toBe(401);
    const missingTenant = await t.call("POST", `/v1/admin/tenants/t_${"0".repeat(16)}/keys`, {
      key: ADMIN_KEY,
      json: {},
    });
    expect(missingTenant.status).toBe(404);
    expect((await json(missingTenant)).error).toMatchObject({ code: "tenant_not_found" });
  });
});

describe("tenants", () => {
  it("answers another tenant's session or run on every route with the 404 of a missing one, changing nothing", async () => {
    const alice = await aliceSession();
    const missing = {
      id: "01234567-0000-7000-8000-000000000000",
      runId: `run_${"0".repeat(24)}`,
      entryId: alice.entryId,
    };
    const theirs = routesFor(alice);
    const none = routesFor(missing);
    for (const [index, [method, path, body]] of theirs.entries()) {
      const res = await t.call(method, path, { key: t.bob.key, ...(body ? { json: body } : {}) });
      const [, missingPath, missingBody] = none[index] as (typeof none)[number];
      const control = await t.call(method, missingPath, {
        key: t.bob.key,
        ...(missingBody ? { json: missingBody } : {}),
      });
      expect({ route: `${method} ${path}`, status: res.status }).toEqual({
        route: `${method} ${path}`,
        status: 404,
      });
      expect(control.status).toBe(404);
      const seen = JSON.stringify(await json(res))
        .replaceAll(alice.id, "ID")
        .replaceAll(alice.runId, "RUN");
      const expected = JSON.stringify(await json(control))
        .replaceAll(missing.id, "ID")
        .replaceAll(missing.runId, "RUN");
      expect(seen).toBe(expected);
    }
    expect(await snapshot(alice.id)).toBe(alice.snapshot);
    expect((await json(await t.call("GET", `/v1/runs/${alice.runId}`))).status).toBe("completed");
    const bobs = await json(await t.call("GET", "/v1/sessions", { key: t.bob.key }));
    expect(bobs.sessions).toEqual([]);
  });
});
