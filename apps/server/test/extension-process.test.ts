import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer } from "@arbor/providers/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSse } from "./helpers/sse-client.js";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const ADMIN = "process-admin-key-0123456789";

let dir: string;
let child: ChildProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-process-"));
});
afterEach(async () => {
  child?.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

/** Starts the built bin and resolves with its URL and a view of what it printed. */
function startBin(config: string): Promise<{ url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const started = spawn(process.execPath, [BIN, "--config", config], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ARBOR_HOME: dir,
        ARBOR_ADMIN_KEY: ADMIN,
        FAKE_KEY: "k",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = started;
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve({ url, output: () => output });
    };
    started.stdout.on("data", collect);
    started.stderr.on("data", collect);
    started.on("error", reject);
    started.on("close", (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
}

describe.skipIf(!existsSync(BIN))("a hostile extension in the built server", () => {
  it("a rejection it leaves unhandled during a run is reported with its name; the server keeps serving", async () => {
    const fake = await FakeProviderServer.start({ fallback: () => "fine" });
    try {
      await writeFile(
        join(dir, "leaky.ts"),
        "export default (arbor) => arbor.on('session_start', () => { Promise.reject(new Error('nobody awaits me')); });\n",
      );
      const config = join(dir, "server.yaml");
      await writeFile(
        config,
        [
          "port: 0",
          `providers:\n  fake: { api: openai-chat, baseURL: ${fake.openaiBaseURL}, apiKeyEnv: FAKE_KEY }`,
          "agents:\n  - { name: leaky, models: [fake/m], systemPrompt: You help., extensions: [leaky.ts] }",
        ].join("\n"),
      );
      const { url, output } = await startBin(config);
      const call = async (method: string, path: string, key: string, json?: unknown) =>
        fetch(`${url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(json !== undefined ? { "content-type": "application/json" } : {}),
          },
          ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
        });
      const tenant = (await (
        await call("POST", "/v1/admin/tenants", ADMIN, { name: "t" })
      ).json()) as {
        id: string;
      };
      const { key } = (await (
        await call("POST", `/v1/admin/tenants/${tenant.id}/keys`, ADMIN, {})
      ).json()) as { key: string };
      for (let i = 0; i < 2; i++) {
        const session = (await (await call("POST", "/v1/sessions", key, {})).json()) as {
          id: string;
        };
        const started = (await (
          await call("POST", `/v1/sessions/${session.id}/runs`, key, {
            agent: "leaky",
            prompt: "hi",
          })
        ).json()) as { runId: string };
        const reading = await readSse(await call("GET", `/v1/runs/${started.runId}/events`, key));
        const end = reading.messages.at(-1);
        expect(end?.event).toBe("end");
        expect(JSON.parse(end?.data ?? "{}").status).toBe("completed");
      }
      expect((await fetch(`${url}/health`)).status).toBe(200);
      expect(output()).toMatch(
        /extension leaky\.ts \(background, unhandled_rejection\): .*nobody awaits me/,
      );
    } finally {
      await fake.close();
    }
  }, 60_000);
});
