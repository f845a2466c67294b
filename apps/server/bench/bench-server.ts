import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { type KeyedCall, keyedCall } from "../test/helpers/keyed-call.js";

/** A server on loopback over a fake provider, with a tenant key, for the benchmarks. */
export interface BenchServer {
  /** The `arbor-server` process and where it listens. */
  server: { url: string; process: ChildProcess };
  fake: FakeProviderServer;
  home: string;
  key: string;
  tenantId: string;
  providers: { fake: { api: "openai-chat"; apiKey: string; baseURL: string } };
  /** Calls the server with the tenant key. */
  call: KeyedCall;
  close(): Promise<void>;
}

const ADMIN = "bench-admin-key-0123456789abcdef";

/**
 * Starts `arbor-server` in its own process (as deployed: file store and file run log under a
 * fresh home), so the load the benchmark makes does not share its event loop.
 */
export async function startBenchServer(
  fallback: (body: Record<string, unknown>) => ScriptedResponseInput,
): Promise<BenchServer> {
  const fake = await FakeProviderServer.start({ fallback });
  const home = await mkdtemp(join(tmpdir(), "arbor-server-bench-"));
  const config = join(home, "server.yaml");
  await writeFile(
    config,
    [
      "port: 0",
      "providers:",
      `  fake: { api: openai-chat, baseURL: "${fake.openaiBaseURL}", apiKeyEnv: FAKE_KEY }`,
      "agents:",
      "  - { name: helper, models: [fake/fake-model], systemPrompt: You help. }",
      "limits:",
      "  sseStreamsPerKey: 5000",
      "  requestsPerMinute: 10000000",
      "  keepAliveMs: 10000",
    ].join("\n"),
  );
  const env = { ARBOR_ADMIN_KEY: ADMIN, FAKE_KEY: "fake", ARBOR_HOME: home };
  const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", bin, "--config", config], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.once("exit", (code) => reject(new Error(`arbor-server exited with ${code}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const found = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (found) resolve(found);
    });
  });
  const server = { url, process: child };
  const admin = async (path: string, json: unknown) =>
    (await (
      await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      })
    ).json()) as Record<string, string>;
  const tenant = await admin("/v1/admin/tenants", { name: "bench" });
  const { key } = await admin(`/v1/admin/tenants/${tenant.id}/keys`, {});
  return {
    server,
    fake,
    home,
    key: key as string,
    tenantId: tenant.id as string,
    providers: { fake: { api: "openai-chat", apiKey: "fake", baseURL: fake.openaiBaseURL } },
    call: keyedCall(() => server.url, key as string),
    close: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await fake.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The median of numbers. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
