import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { parseServerOptions, type RunningServer, startServer } from "../../src/index.js";
import { lastUserText } from "./answers.js";
import { readSse, type SseMessage, type SseReading } from "./sse-client.js";

/** The repository's example extensions. */
export const EXAMPLES = fileURLToPath(new URL("../../../../examples/extensions/", import.meta.url));
/** The test extensions. */
export const TEST_EXTENSIONS = fileURLToPath(
  new URL("../__fixtures__/extensions/", import.meta.url),
);

/** A server whose agents have extensions, over a fake provider, with two tenants' keys. */
export interface ExtensionServer {
  server: RunningServer;
  fake: FakeProviderServer;
  home: string;
  /** What the server printed (extension errors are reported there). */
  printed: string[];
  /** Calls the server with a tenant's key (the first tenant's by default). */
  call(method: string, path: string, json?: unknown, key?: string): Promise<Response>;
  key: string;
  otherKey: string;
  close(): Promise<void>;
}

/**
 * The fake model: a prompt naming `run <command>` calls `bash` with the command; after a
 * tool result it answers with what the tool said; anything else gets a short answer.
 */
export function shellAnswers(body: Record<string, unknown>): ScriptedResponseInput {
  const messages = (body.messages ?? []) as { role?: string; content?: unknown }[];
  const last = messages.at(-1);
  if (last?.role === "tool") {
    return `tool said: ${typeof last.content === "string" ? last.content : JSON.stringify(last.content)}`;
  }
  const run = /run (.+)$/.exec(lastUserText(body));
  if (run) {
    return { blocks: [{ type: "toolCall", name: "bash", arguments: { command: run[1] } }] };
  }
  return `answer to: ${lastUserText(body).slice(0, 60)}`;
}

/** The config: `gated` (fake shell + permission gate), `planner` (plan mode, todos, questions, fresh start), `helper`. */
export function extensionConfig(fakeBaseUrl: string, extra = ""): string {
  return [
    "host: 127.0.0.1",
    "port: 0",
    "providers:",
    `  fake: { api: openai-chat, baseURL: ${fakeBaseUrl}, apiKeyEnv: FAKE_PROVIDER_KEY }`,
    "agents:",
    "  - name: gated",
    "    models: [fake/fake-model]",
    "    systemPrompt: You help.",
    "    extensions:",
    `      - ${join(TEST_EXTENSIONS, "fake-shell.ts")}`,
    `      - ${join(EXAMPLES, "permission-gate.ts")}`,
    "  - name: planner",
    "    models: [fake/fake-model]",
    "    systemPrompt: You plan.",
    "    extensions:",
    `      - ${join(EXAMPLES, "plan-mode.ts")}`,
    `      - ${join(EXAMPLES, "todo-list.ts")}`,
    `      - ${join(TEST_EXTENSIONS, "asks-everything.ts")}`,
    `      - ${join(EXAMPLES, "fresh-start.ts")}`,
    "  - name: helper",
    "    models: [fake/fake-model]",
    "    systemPrompt: You help.",
    "limits:",
    "  keepAliveMs: 150",
    extra,
  ].join("\n");
}

/** Starts the server on a fresh home and makes two tenants with a key each. */
export async function startExtensionServer(extra = ""): Promise<ExtensionServer> {
  const fake = await FakeProviderServer.start({ fallback: shellAnswers });
  const home = await mkdtemp(join(tmpdir(), "arbor-server-ext-"));
  const configPath = join(home, "arbor-server.yaml");
  await writeFile(configPath, extensionConfig(fake.openaiBaseURL, extra));
  const admin = "extension-admin-key-0123456789";
  const env = { ARBOR_ADMIN_KEY: admin, FAKE_PROVIDER_KEY: "fake-key", ARBOR_HOME: home };
  const printed: string[] = [];
  const server = await startServer(parseServerOptions(["--config", configPath], env), {
    env,
    version: "9.9.9",
    print: (line) => printed.push(line),
  });
  const post = (path: string, json: unknown, key: string) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const tenantKey = async (name: string) => {
    const tenant = await post("/v1/admin/tenants", { name }, admin);
    return (await post(`/v1/admin/tenants/${tenant.id}/keys`, {}, admin)).key as string;
  };
  const key = await tenantKey("acme");
  const otherKey = await tenantKey("globex");
  return {
    server,
    fake,
    home,
    printed,
    key,
    otherKey,
    call: (method, path, json, callKey = key) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${callKey}`,
          ...(json !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      }),
    close: async () => {
      await server.close();
      await fake.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** The JSON of a response. */
export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

/** Creates a session and returns its id. */
export async function newSession(s: ExtensionServer): Promise<string> {
  return (await json(await s.call("POST", "/v1/sessions", { cwd: "/srv/app" }))).id as string;
}

/** The parsed data of the stream's messages of one event type. */
export function dataOf(reading: SseReading, type: string): Record<string, unknown>[] {
  return reading.messages
    .filter((m: SseMessage) => m.event === type)
    .map((m) => JSON.parse(m.data ?? "{}") as Record<string, unknown>);
}

/** Follows a run's events over the socket; `onEvent` sees each one as it arrives. */
export async function follow(
  s: ExtensionServer,
  runId: string,
  onEvent: (message: SseMessage, reading: SseReading) => void | Promise<void> = () => undefined,
): Promise<SseReading> {
  const res = await s.call("GET", `/v1/runs/${runId}/events`);
  let seen = 0;
  const pending: Promise<void>[] = [];
  const reading = await readSse(res, {
    stopWhen: (r) => {
      for (; seen < r.messages.length; seen++) {
        pending.push(Promise.resolve(onEvent(r.messages[seen] as SseMessage, r)));
      }
      return false;
    },
  });
  await Promise.all(pending);
  return reading;
}
