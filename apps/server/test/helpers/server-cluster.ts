import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FakeProviderServer, type ScriptedResponseInput } from "@arbor/providers/test";
import { findPgBindir, PgCluster } from "./pg-cluster.js";

/** The built bin the cluster tests start. */
export const BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));
/** Why the cluster tests cannot run here, if they cannot. */
export const clusterUnavailable: string | undefined = !existsSync(BIN)
  ? "the server is not built (dist/bin.js)"
  : !findPgBindir()
    ? "initdb, pg_ctl and postgres not found"
    : undefined;

const ADMIN = "cluster-admin-key-0123456789abcdef";

/** One `arbor-server` process of the cluster. */
export interface Instance {
  child: ChildProcess;
  url: string;
  output: string[];
  exited: Promise<number | null>;
}

/** Settings of the instances (the `cluster:` section of their config) and the test's seams. */
export interface ServerClusterOptions {
  instances: number;
  fallback: (body: Record<string, unknown>) => ScriptedResponseInput;
  leaseTtlMs?: number;
  pollMs?: number;
  shutdownGraceMs?: number;
  eventRetentionMs?: number;
  /** Extra `limits:` lines. */
  limits?: string;
  /** Extra agent entries (YAML lines under `agents:`). */
  agents?: string;
  /** A PostgreSQL already running (otherwise one is started). */
  pg?: PgCluster;
}

/**
 * N real `arbor-server` processes (the built bin) on one throwaway PostgreSQL cluster and
 * a fake OpenAI server, with a tenant key made through the first instance.
 */
export class ServerCluster {
  readonly instances: Instance[] = [];
  key = "";
  private constructor(
    readonly pg: PgCluster,
    private readonly ownsPg: boolean,
    readonly fake: FakeProviderServer,
    private readonly home: string,
    private readonly configPath: string,
  ) {}

  /** Starts the database (unless given), the fake provider and the instances. */
  static async start(options: ServerClusterOptions): Promise<ServerCluster> {
    const bindir = findPgBindir() as string;
    const pg = options.pg ?? (await PgCluster.start(bindir));
    const fake = await FakeProviderServer.start({ fallback: options.fallback });
    const home = await mkdtemp(join(tmpdir(), "arbor-server-cluster-"));
    const configPath = join(home, "arbor-server.yaml");
    await writeFile(
      configPath,
      [
        "host: 127.0.0.1",
        "port: 0",
        `database: ${pg.connectionString}`,
        "providers:",
        "  fake:",
        "    api: openai-chat",
        `    baseURL: ${fake.openaiBaseURL}`,
        "    apiKeyEnv: FAKE_PROVIDER_KEY",
        "agents:",
        "  - name: helper",
        "    models: [fake/fake-model]",
        "    systemPrompt: You help.",
        options.agents ?? "",
        "limits:",
        "  keepAliveMs: 200",
        "  sseStreamsPerKey: 5000",
        "  requestsPerMinute: 10000000",
        options.limits ?? "",
        "cluster:",
        `  leaseTtlMs: ${options.leaseTtlMs ?? 2000}`,
        `  pollMs: ${options.pollMs ?? 250}`,
        `  shutdownGraceMs: ${options.shutdownGraceMs ?? 1000}`,
        `  eventRetentionMs: ${options.eventRetentionMs ?? 3_600_000}`,
        "  maxConnections: 8",
      ].join("\n"),
    );
    const cluster = new ServerCluster(pg, !options.pg, fake, home, configPath);
    try {
      await Promise.all(
        Array.from({ length: options.instances }, (_, i) => cluster.startInstance(i)),
      );
      const admin = (path: string, json: unknown) =>
        fetch(`${cluster.url(0)}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
          body: JSON.stringify(json),
        }).then((r) => r.json() as Promise<Record<string, string>>);
      const tenant = await admin("/v1/admin/tenants", { name: "acme" });
      cluster.key = (await admin(`/v1/admin/tenants/${tenant.id}/keys`, {})).key as string;
    } catch (error) {
      await cluster.close();
      throw error;
    }
    return cluster;
  }

  /** The admin key of the instances. */
  get adminKey(): string {
    return ADMIN;
  }

  /** The base URL of instance `i`. */
  url(i: number): string {
    const instance = this.instances[i];
    if (!instance) throw new Error(`no instance ${i}`);
    return instance.url;
  }

  /** Starts (or starts again) instance `i`; resolves once it listens. */
  async startInstance(i: number): Promise<Instance> {
    const child = spawn(process.execPath, [BIN, "--config", this.configPath], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        ARBOR_ADMIN_KEY: ADMIN,
        FAKE_PROVIDER_KEY: "fake-key",
        ARBOR_HOME: this.home,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      const timer = setTimeout(
        () => reject(new Error(`instance ${i} did not listen in 30 s:\n${output.join("")}`)),
        30_000,
      );
      child.stdout?.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        output.push(chunk.toString("utf8"));
        const found = /listening on (http:\/\/\S+)/.exec(text)?.[1];
        if (found) {
          clearTimeout(timer);
          resolve(found);
        }
      });
      child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString("utf8")));
      exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`instance ${i} exited (${code}) before listening:\n${output.join("")}`));
      });
    });
    const instance = { child, url, output, exited };
    this.instances[i] = instance;
    return instance;
  }

  /** Calls instance `i` with the tenant key. */
  call(
    i: number,
    method: string,
    path: string,
    json?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    return fetch(`${this.url(i)}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        ...(json !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
  }

  /** Creates a session through instance `i`. */
  async newSession(i = 0): Promise<string> {
    const res = await this.call(i, "POST", "/v1/sessions", { cwd: "/srv/cluster" });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: string }).id;
  }

  /** Starts a run through instance `i`; returns the response's status and body. */
  async startRun(
    i: number,
    sessionId: string,
    prompt: string,
    ifBusy?: "reject" | "enqueue" | "interrupt",
  ): Promise<{ status: number; body: Record<string, string> }> {
    const res = await this.call(i, "POST", `/v1/sessions/${sessionId}/runs`, {
      agent: "helper",
      prompt,
      ...(ifBusy ? { ifBusy } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, string> };
  }

  /** Waits (bounded) until a run ended, reading it through instance `i`. */
  async waitForRun(i: number, runId: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let last = "";
    for (;;) {
      const res = await this.call(i, "GET", `/v1/runs/${runId}`).catch(() => undefined);
      if (res?.status === 200) {
        const body = (await res.json()) as Record<string, unknown>;
        last = String(body.status);
        if (!["queued", "running"].includes(last)) return body;
      }
      if (Date.now() > deadline)
        throw new Error(`run ${runId} still "${last}" after ${timeoutMs} ms (read on ${i})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Sends a signal to instance `i` and waits (bounded) for it to exit. */
  async kill(i: number, signal: NodeJS.Signals): Promise<number | null> {
    const instance = this.instances[i];
    if (!instance) return null;
    instance.child.kill(signal);
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`instance ${i} did not exit after ${signal}`)), 20_000),
    );
    return Promise.race([instance.exited, timeout]);
  }

  /** Stops every instance, the fake provider and (when it started it) the database. */
  async close(): Promise<void> {
    for (const instance of this.instances) {
      if (instance && instance.child.exitCode === null && instance.child.signalCode === null)
        instance.child.kill("SIGKILL");
    }
    await Promise.all(this.instances.map((instance) => instance?.exited));
    await this.fake.close().catch(() => undefined);
    if (this.ownsPg) await this.pg.destroy();
    await rm(this.home, { recursive: true, force: true });
  }
}
