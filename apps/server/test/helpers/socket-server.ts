import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { parseServerOptions, type RunningServer, startServer } from "../../src/index.js";
import { type KeyedCall, keyedCall } from "./keyed-call.js";

/** An `arbor-server` listening on loopback, over a fake provider, with a tenant key. */
export interface SocketServer {
  server: RunningServer;
  fake: FakeProviderServer;
  home: string;
  key: string;
  adminKey: string;
  /** Calls the server with the tenant key. */
  call: KeyedCall;
  /** Starts the server again on the same home (after {@link SocketServer.server} closed). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

const ADMIN = "socket-admin-key-0123456789abcdef";

/** The YAML config the socket tests start the server with. */
export function socketConfig(fakeBaseUrl: string, limits = ""): string {
  return [
    "host: 127.0.0.1",
    "port: 0",
    "providers:",
    "  fake:",
    "    api: openai-chat",
    `    baseURL: ${fakeBaseUrl}`,
    "    apiKeyEnv: FAKE_PROVIDER_KEY",
    "agents:",
    "  - name: helper",
    "    models: [fake/fake-model]",
    "    systemPrompt: You help.",
    "limits:",
    "  keepAliveMs: 150",
    limits,
  ].join("\n");
}

/** Starts a server on a fresh home with a config file, and makes a tenant key over HTTP. */
export async function startSocketServer(
  fallback: (body: Record<string, unknown>) => ScriptedResponseInput,
  limits = "",
): Promise<SocketServer> {
  const fake = await FakeProviderServer.start({ fallback });
  const home = await mkdtemp(join(tmpdir(), "arbor-server-socket-"));
  const configPath = join(home, "arbor-server.yaml");
  await writeFile(configPath, socketConfig(fake.openaiBaseURL, limits));
  const env = { ARBOR_ADMIN_KEY: ADMIN, FAKE_PROVIDER_KEY: "fake-key", ARBOR_HOME: home };
  const start = () =>
    startServer(parseServerOptions(["--config", configPath], env), {
      env,
      version: "9.9.9",
      print: () => undefined,
    });
  let server = await start();
  const admin = (path: string, json: unknown) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const tenant = await admin("/v1/admin/tenants", { name: "acme" });
  const { key } = await admin(`/v1/admin/tenants/${tenant.id}/keys`, {});
  const result: SocketServer = {
    server,
    fake,
    home,
    key: key as string,
    adminKey: ADMIN,
    call: keyedCall(() => result.server.url, key as string),
    restart: async () => {
      server = await start();
      result.server = server;
    },
    close: async () => {
      await result.server.close();
      await fake.close();
      await rm(home, { recursive: true, force: true });
    },
  };
  return result;
}
