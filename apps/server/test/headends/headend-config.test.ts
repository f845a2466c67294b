import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp, parseServerConfigText } from "../../src/index.js";
import { makeTestApp, type TestApp } from "../helpers/test-app.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(() => t.close());

describe("headends in the config", () => {
  it("are all on by default, and each can be switched off", () => {
    expect(parseServerConfigText("agents: []\n", "config.yaml").headends).toEqual({
      openai: true,
      mcp: true,
      a2a: true,
    });
    expect(parseServerConfigText("headends:\n  mcp: false\n", "config.yaml").headends).toEqual({
      openai: true,
      mcp: false,
      a2a: true,
    });
    expect(() => parseServerConfigText("headends:\n  grpc: true\n", "config.yaml")).toThrow(/grpc/);
  });

  it("a headend switched off is not there", async () => {
    const off = createApp({ ...t.deps, headends: { openai: false, mcp: false, a2a: false } });
    const auth = { authorization: `Bearer ${t.alice.key}` };
    expect((await t.app.request("/v1/models", { headers: auth })).status).toBe(200);
    const res = await off.request("/v1/models", { headers: auth });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "not_found" } });
    const mcp = {
      ...auth,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} });
    expect((await off.request("/mcp", { method: "POST", headers: mcp, body: init })).status).toBe(
      404,
    );
    expect((await off.request("/a2a", { method: "POST", headers: mcp, body: init })).status).toBe(
      404,
    );
    expect((await off.request("/.well-known/agent-card.json")).status).toBe(404);
    expect((await t.app.request("/.well-known/agent-card.json")).status).toBe(200);
  });
});
