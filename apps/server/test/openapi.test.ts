import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArborClient } from "../src/index.js";
import { makeTestApp, type TestApp } from "./helpers/test-app.js";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(() => t.close());

describe("OpenAPI", () => {
  it("serves an OpenAPI 3.1 document with every route, without a key", async () => {
    const res = await t.call("GET", "/openapi.json", { key: null });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    const routes = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        "POST /v1/sessions",
        "GET /v1/sessions",
        "GET /v1/sessions/{id}",
        "DELETE /v1/sessions/{id}",
        "PUT /v1/sessions/{id}/title",
        "DELETE /v1/sessions/{id}/title",
        "POST /v1/sessions/{id}/title/generate",
        "POST /v1/sessions/{id}/fork",
        "GET /v1/sessions/{id}/tree",
        "GET /v1/sessions/{id}/entries",
        "GET /v1/sessions/{id}/path",
        "GET /v1/sessions/{id}/context",
        "PUT /v1/sessions/{id}/entries/{entryId}/label",
        "DELETE /v1/sessions/{id}/entries/{entryId}/label",
        "POST /v1/sessions/{id}/navigate",
        "POST /v1/sessions/{id}/compact",
        "GET /v1/sessions/{id}/export",
        "POST /v1/sessions/{id}/runs",
        "GET /v1/runs/{id}",
        "GET /v1/runs/{id}/events",
        "POST /v1/runs/{id}/stop",
        "POST /v1/runs/{id}/abort",
        "POST /v1/runs/{id}/ui/{requestId}",
        "GET /v1/agents/{agent}/commands",
        "POST /v1/sessions/{id}/commands/{name}",
        "POST /v1/admin/tenants",
        "GET /v1/admin/tenants",
        "POST /v1/admin/tenants/{tenantId}/keys",
        "GET /v1/admin/tenants/{tenantId}/keys",
        "DELETE /v1/admin/tenants/{tenantId}/keys/{keyId}",
      ].sort(),
    );
    const start = doc.paths["/v1/sessions/{id}/runs"]?.post as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      responses: Record<string, unknown>;
    };
    expect(
      Object.keys(start.requestBody.content["application/json"]?.schema.properties ?? {}),
    ).toEqual(expect.arrayContaining(["agent", "prompt", "images", "ifBusy"]));
    expect(Object.keys(start.responses)).toEqual(
      expect.arrayContaining(["202", "400", "401", "404", "409"]),
    );
    // Each SSE route describes its `data:` with the run event union, agent-tree events included.
    const events = doc.paths["/v1/runs/{id}/events"]?.get as
      | { responses: Record<string, { content: Record<string, { schema: unknown }> }> }
      | undefined;
    const sse = [
      (start.responses["200"] as { content: Record<string, { schema: unknown }> }).content,
      events?.responses["200"]?.content,
    ];
    for (const content of sse) {
      const schema = JSON.stringify(content?.["text/event-stream"]?.schema ?? {});
      for (const type of ["text_delta", "agent_end", "child_start", "handoff", "ui_request"]) {
        expect(schema).toContain(`"${type}"`);
      }
    }
  });

  it("gives TypeScript users a typed hc client", async () => {
    const client = createArborClient("http://arbor.test", t.alice.key, {
      fetch: ((input: Request | string | URL, init?: RequestInit) =>
        t.app.request(input instanceof Request ? input : String(input), init)) as typeof fetch,
    });
    const created = await client.v1.sessions.$post({ json: { cwd: "/srv/typed" } });
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const session = await created.json();
    const detail = await client.v1.sessions[":id"].$get({ param: { id: session.id } });
    if (detail.status !== 200) throw new Error(`get answered ${detail.status}`);
    const body = await detail.json();
    expect(body.cwd).toBe("/srv/typed");
    const run = await client.v1.sessions[":id"].runs.$post({
      param: { id: session.id },
      json: { agent: "helper", prompt: "hi" },
    });
    expect(run.status).toBe(202);
  });
});
