import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentDefinition, defineAgent } from "@arbor/orchestration";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { FileSessionStore, MemorySessionStore, type SessionStore } from "@arbor/session-store";
import {
  type AppDeps,
  createApp,
  DEFAULT_LIMITS,
  MemoryApiKeyStore,
  MemoryRunEventLog,
  RunService,
  type ServerLimits,
} from "../../src/index.js";
import { FileRunEventLog } from "../../src/runs/file-run-event-log.js";
import type { RunEventLog } from "../../src/runs/run-event-log.js";

/** The admin key test apps accept. */
export const ADMIN_KEY = "admin-key-for-tests-0123456789";

/** What {@link makeTestApp} gives a test. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  fake: FakeProviderServer;
  /** A tenant and its key. */
  alice: { tenantId: string; key: string };
  /** Another tenant and its key. */
  bob: { tenantId: string; key: string };
  /** Calls the app with a key and an optional JSON body. */
  call(
    method: string,
    path: string,
    options?: {
      key?: string | null;
      json?: unknown;
      headers?: Record<string, string>;
      body?: string;
    },
  ): Promise<Response>;
  close(): Promise<void>;
}

/** The test agent: answers through the fake OpenAI server over the real adapter. */
export function testAgent(name = "helper"): AgentDefinition {
  return defineAgent({ name, models: ["fake/fake-model"], systemPrompt: "You help." });
}

/**
 * An app over a store, in-memory keys and a run log, with agents whose model is the fake
 * OpenAI server reached through the real adapter.
 */
export async function makeTestApp(
  options: {
    responses?: ScriptedResponseInput[];
    fallback?: (body: Record<string, unknown>) => ScriptedResponseInput;
    limits?: Partial<ServerLimits>;
    files?: boolean;
    store?: SessionStore;
    /** The agents instead of `helper` and `second` (a config's, loaded with their trees). */
    agents?: AppDeps["agents"];
  } = {},
): Promise<TestApp> {
  const fake = await FakeProviderServer.start({
    responses: options.responses ?? [],
    fallback: options.fallback ?? ((body) => `echo ${JSON.stringify(body.messages).length}`),
  });
  const dir = options.files ? await mkdtemp(join(tmpdir(), "arbor-server-test-")) : undefined;
  const store =
    options.store ??
    (dir ? new FileSessionStore({ root: join(dir, "sessions") }) : new MemorySessionStore());
  const log: RunEventLog = dir ? new FileRunEventLog(join(dir, "runs")) : new MemoryRunEventLog();
  const keys = new MemoryApiKeyStore();
  const agents =
    options.agents ??
    new Map([
      ["helper", testAgent()],
      ["second", testAgent("second")],
    ]);
  const models = {
    providers: {
      fake: { api: "openai-chat" as const, apiKey: "test-key", baseURL: fake.openaiBaseURL },
    },
  };
  const limits = { ...DEFAULT_LIMITS, keepAliveMs: 200, ...options.limits };
  const runs = new RunService({
    store,
    log,
    agents,
    models,
    maxPromptChars: limits.promptChars,
    queueLimits: { perSession: limits.queuedRunsPerSession, perTenant: limits.queuedRunsPerTenant },
  });
  const deps: AppDeps = {
    version: "1.2.3",
    store,
    keys,
    log,
    runs,
    agents,
    models,
    limits,
    adminKey: ADMIN_KEY,
    reportError: () => undefined,
  };
  const app = createApp(deps);
  const tenant = async (name: string) => {
    const t = await keys.createTenant(name);
    return { tenantId: t.id, key: (await keys.createKey(t.id)).key };
  };
  const alice = await tenant("alice");
  const bob = await tenant("bob");
  const call: TestApp["call"] = (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? alice.key : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers["content-type"] ??= "application/json";
    }
    return Promise.resolve(
      app.request(path, { method, headers, ...(body !== undefined ? { body } : {}) }),
    );
  };
  return {
    app,
    deps,
    fake,
    alice,
    bob,
    call,
    close: async () => {
      await runs.close();
      await log.close();
      await store.close();
      await fake.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until a run ended and returns its record. */
export async function waitForRun(
  t: TestApp,
  runId: string,
  key = t.alice.key,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await t.call("GET", `/v1/runs/${runId}`, { key });
    const body = (await res.json()) as Record<string, unknown>;
    if (!["queued", "running"].includes(body.status as string)) return body;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${String(body.status)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Creates a session for alice and returns its id. */
export async function newSession(t: TestApp, key = t.alice.key): Promise<string> {
  const res = await t.call("POST", "/v1/sessions", { key, json: { cwd: "/srv/project" } });
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
