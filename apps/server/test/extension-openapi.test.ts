import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createArborClient } from "../src/index.js";
import { makeTestApp, type TestApp } from "./helpers/test-app.js";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(() => t.close());

type Operation = {
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, unknown>;
};

describe("extension routes in the OpenAPI document and the typed client", () => {
  it("documents the UI answer and the command routes with their bodies and statuses", async () => {
    const doc = (await (await t.call("GET", "/openapi.json", { key: null })).json()) as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, unknown> };
    };
    const answer = doc.paths["/v1/runs/{id}/ui/{requestId}"]?.post as Operation;
    expect(Object.keys(answer.responses)).toEqual(
      expect.arrayContaining(["200", "400", "404", "409"]),
    );
    expect(JSON.stringify(doc.components.schemas.UiAnswer)).toContain("dismiss");
    const commands = doc.paths["/v1/agents/{agent}/commands"]?.get as Operation;
    expect(Object.keys(commands.responses)).toEqual(expect.arrayContaining(["200", "404"]));
    const run = doc.paths["/v1/sessions/{id}/commands/{name}"]?.post as Operation;
    const body = run.requestBody?.content["application/json"]?.schema as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(body.properties)).toEqual(["agent", "args", "ifBusy"]);
    expect(Object.keys(run.responses)).toEqual(expect.arrayContaining(["202", "404", "409"]));
  });

  it("the hc client reaches the routes with typed parameters and bodies", async () => {
    const client = createArborClient("http://arbor.test", t.alice.key, {
      fetch: ((input: Request | string | URL, init?: RequestInit) =>
        t.app.request(input instanceof Request ? input : String(input), init)) as typeof fetch,
    });
    const listed = await client.v1.agents[":agent"].commands.$get({ param: { agent: "helper" } });
    expect(listed.status).toBe(200);
    if (listed.status === 200) expect((await listed.json()).commands).toEqual([]);
    const answered = await client.v1.runs[":id"].ui[":requestId"].$post({
      param: { id: "run_000000000000000000000000", requestId: "ui_1" },
      json: { kind: "confirm", value: true },
    });
    expect(answered.status).toBe(404);
    const created = await client.v1.sessions.$post({ json: { cwd: "/srv/typed" } });
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const session = await created.json();
    const ran = await client.v1.sessions[":id"].commands[":name"].$post({
      param: { id: session.id, name: "plan" },
      json: { agent: "helper", args: "on" },
    });
    expect(ran.status).toBe(404);
  });
});
