import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { lastUserText } from "../helpers/answers.js";
import { failUnderCi } from "../helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "../helpers/server-cluster.js";

// Real servers and SDK clients: generous limits, so a loaded machine does not fail them.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

failUnderCi(clusterUnavailable, "the headend cluster tests");

let c: ServerCluster;
beforeAll(async () => {
  if (clusterUnavailable) return;
  c = await ServerCluster.start({
    instances: 2,
    leaseTtlMs: 15_000,
    fallback: (body) =>
      `echo: ${lastUserText(body)} (${(body.messages as unknown[]).length} messages)`,
  });
}, 90_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

function client(i: number): OpenAI {
  return new OpenAI({ baseURL: `${c.instances[i]?.url}/v1`, apiKey: c.key, maxRetries: 0 });
}

describe.skipIf(clusterUnavailable)("OpenAI Responses on two instances of one PostgreSQL", () => {
  it("a chain started on one instance continues, and branches, on the other", async () => {
    const first = await client(0).responses.create({ model: "helper", input: "start here" });
    expect(first.output_text).toMatch(/^echo: start here \((\d+) messages\)$/);
    const before = Number(/\((\d+) messages\)/.exec(first.output_text)?.[1]);
    // The other instance finds the response (its run) and answers after its entry, twice.
    const a = await client(1).responses.create({
      model: "helper",
      input: "branch a",
      previous_response_id: first.id,
    });
    const b = await client(1).responses.create({
      model: "helper",
      input: "branch b",
      previous_response_id: first.id,
    });
    expect(a.output_text).toBe(`echo: branch a (${before + 2} messages)`);
    expect(b.output_text).toBe(`echo: branch b (${before + 2} messages)`);
    const back = await client(0).responses.retrieve(b.id);
    expect(back.output_text).toBe(b.output_text);
    const deeper = await client(0).responses.create({
      model: "helper",
      input: "after a",
      previous_response_id: a.id,
    });
    expect(deeper.output_text).toBe(`echo: after a (${before + 4} messages)`);
  }, 120_000);
});
