import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerByPrompt } from "./helpers/answers.js";
import { failUnderCi } from "./helpers/pg-cluster.js";
import { clusterUnavailable, ServerCluster } from "./helpers/server-cluster.js";
import { readSse } from "./helpers/sse-client.js";

failUnderCi(clusterUnavailable, "the PostgreSQL awkward-string tests");

/** U+0000, a lone high and a lone low surrogate, and the escape character itself. */
const ODD = "n\u0000h\ud800l\udc00e\ue000";

let c: ServerCluster;
beforeAll(async () => {
  if (clusterUnavailable) return;
  c = await ServerCluster.start({ instances: 1, fallback: answerByPrompt });
}, 90_000);
afterAll(async () => {
  await c?.close();
}, 60_000);

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

describe.skipIf(clusterUnavailable)(
  "the server on PostgreSQL with U+0000 and lone surrogates",
  () => {
    it("keeps them exactly in tenants, working directories, prompts, answers and labels", async () => {
      const admin = (method: string, path: string, body?: unknown) =>
        fetch(`${c.url(0)}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${c.adminKey}`,
            ...(body ? { "content-type": "application/json" } : {}),
          },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
      const tenant = await admin("POST", "/v1/admin/tenants", { name: `tenant ${ODD}` });
      expect(tenant.status).toBe(201);
      const tenants = (await json(await admin("GET", "/v1/admin/tenants"))).tenants as Array<{
        name: string;
      }>;
      expect(tenants.map((t) => t.name)).toContain(`tenant ${ODD}`);

      const created = await c.call(0, "POST", "/v1/sessions", { cwd: `/srv/${ODD}` });
      expect(created.status).toBe(201);
      const id = (await json(created)).id as string;
      const started = await c.startRun(0, id, `echo ${ODD}`);
      expect(started.status).toBe(202);
      const run = await c.waitForRun(0, started.body.runId as string);
      expect(run.status).toBe("completed");

      const reading = await readSse(
        await c.call(0, "GET", `/v1/runs/${started.body.runId}/events`),
      );
      const deltas = reading.messages
        .filter((m) => m.event === "text_delta")
        .map((m) => (JSON.parse(m.data as string) as { delta: string }).delta)
        .join("");
      expect(deltas).toBe(`answer to: echo ${ODD}`);

      const context = await json(await c.call(0, "GET", `/v1/sessions/${id}/context`));
      const messages = context.messages as Array<{ content: string | Array<{ text?: string }> }>;
      const texts = messages.map((m) =>
        typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join(""),
      );
      expect(texts).toEqual([`echo ${ODD}`, `answer to: echo ${ODD}`]);

      const tree = await json(await c.call(0, "GET", `/v1/sessions/${id}/tree`));
      const first = (tree.nodes as Array<{ entry: { id: string } }>)[0]?.entry.id as string;
      const labelled = await c.call(0, "PUT", `/v1/sessions/${id}/entries/${first}/label`, {
        label: `label ${ODD}`,
      });
      expect(labelled.status).toBe(200);
      const listed = (await json(await c.call(0, "GET", "/v1/sessions"))).sessions as Array<{
        id: string;
        cwd: string;
        title?: string;
      }>;
      const mine = listed.find((s) => s.id === id);
      expect(mine?.cwd).toBe(`/srv/${ODD}`);
      expect(mine?.title).toBe(`echo ${ODD}`);
    }, 60_000);
  },
);
