import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { FileSessionStore, type SessionStore } from "@arbor/session-store";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import type { ApiKeyStore } from "./auth/api-key-schema.js";
import { FileApiKeyStore } from "./auth/file-api-key-store.js";
import { loadServerAgents, readServerConfigFile } from "./config/load-server-config.js";
import { ServerConfigError } from "./config/server-config-error.js";
import { type ServerConfigFile, serverConfigFileSchema } from "./config/server-config-schema.js";
import {
  DEFAULT_HOST,
  DEFAULT_PORT,
  resolveHome,
  type ServerOptions,
} from "./config/server-options.js";
import { FileRunEventLog } from "./runs/file-run-event-log.js";
import { type ClusterParts, openCluster } from "./runs/postgres/open-cluster.js";
import type { RunControl } from "./runs/run-control.js";
import type { RunEventLog } from "./runs/run-event-log.js";
import { RunService } from "./runs/run-service.js";

/** What {@link startServer} needs beside the options. */
export interface StartServerContext {
  /** The environment: provider keys (`apiKeyEnv`) and `ARBOR_ADMIN_KEY`. */
  env: Readonly<Record<string, string | undefined>>;
  version: string;
  /** Where the server reports what it does and internal failures. */
  print: (line: string) => void;
}

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`. */
  url: string;
  port: number;
  /** Stops taking requests, ends runs (recorded as interrupted) and releases the store. */
  close(): Promise<void>;
}

/**
 * Starts `arbor-server`: reads the config, opens the store (files under the home, or
 * PostgreSQL), loads the agents and listens.
 * @throws ServerConfigError for a bad config, option or agent (nothing is listening then)
 */
export async function startServer(
  options: ServerOptions,
  context: StartServerContext,
): Promise<RunningServer> {
  const config: ServerConfigFile = options.configPath
    ? await readServerConfigFile(options.configPath)
    : serverConfigFileSchema.parse({});
  const home = resolveHome(options.home ?? config.home);
  const database = options.database ?? config.database;
  const { agents, providers, extensions } = await loadServerAgents(
    config,
    options.configPath,
    context.env,
  );
  extensions.report = context.print;
  const adminKey = context.env.ARBOR_ADMIN_KEY?.trim() || undefined;
  if (adminKey !== undefined && adminKey.length < 16) {
    throw new ServerConfigError("ARBOR_ADMIN_KEY", "ARBOR_ADMIN_KEY", "use at least 16 characters");
  }
  const reportError = (error: unknown) =>
    context.print(`arbor-server: internal error: ${(error as Error)?.stack ?? String(error)}`);
  let store: SessionStore;
  let keys: ApiKeyStore;
  let log: RunEventLog;
  let runs: RunControl;
  let cluster: ClusterParts | undefined;
  if (database !== undefined) {
    // Sessions, keys, runs and their events all in PostgreSQL: any instance serves any request.
    try {
      const pgStore = await PostgresSessionStore.connect({
        connectionString: database,
        leaseTtlMs: config.cluster.leaseTtlMs,
        maxConnections: config.cluster.maxConnections,
      });
      store = pgStore;
      cluster = await openCluster({
        connectionString: database,
        store: pgStore,
        settings: config.cluster,
        agents,
        models: providers,
        maxPromptChars: config.limits.promptChars,
        extensions,
        report: reportError,
      }).catch(async (error) => {
        await pgStore.close();
        throw error;
      });
    } catch (error) {
      throw new ServerConfigError(
        "--database",
        "database",
        `cannot connect: ${(error as Error).message}`,
      );
    }
    ({ keys, log, runs } = cluster);
  } else {
    store = new FileSessionStore({ root: join(home, "sessions") });
    keys = new FileApiKeyStore(join(home, "server", "api-keys.json"));
    log = new FileRunEventLog(join(home, "server", "runs"));
    runs = new RunService({
      store,
      log,
      agents,
      models: providers,
      maxPromptChars: config.limits.promptChars,
      queueLimits: {
        perSession: config.limits.queuedRunsPerSession,
        perTenant: config.limits.queuedRunsPerTenant,
      },
      extensions,
    });
  }
  const app = createApp({
    version: context.version,
    store,
    keys,
    log,
    runs,
    agents,
    models: providers,
    limits: config.limits,
    adminKey,
    corsOrigins: config.cors?.origins,
    headends: config.headends,
    extensions,
    ...(cluster ? { ready: cluster.ready } : {}),
    reportError,
  });
  const host = options.host ?? config.host ?? DEFAULT_HOST;
  const port = options.port ?? config.port ?? DEFAULT_PORT;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const limits = config.limits;
    const listening = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        // A client that sends its headers or body too slowly is cut off (a response, such as
        // an SSE stream, is not limited by these). Checked every second.
        serverOptions: {
          requestTimeout: limits.requestTimeoutMs,
          headersTimeout: Math.min(limits.requestTimeoutMs, 30_000),
          connectionsCheckingInterval: 1000,
        },
      },
      () => resolve(listening),
    );
    listening.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new ServerConfigError(
          "--port",
          "port",
          `cannot listen on ${host}:${port} (${error.code ?? error.message})`,
        ),
      ),
    );
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  context.print(`arbor-server ${context.version} listening on ${url}`);
  context.print(
    `  store: ${cluster ? `PostgreSQL (instance ${cluster.instanceId})` : join(home, "sessions")}; agents: ${[...agents.keys()].join(", ") || "(none configured)"}`,
  );
  context.print("  authenticate with: Authorization: Bearer <api key>");
  context.print(
    adminKey
      ? `  create a tenant and a key with the admin key: POST ${url}/v1/admin/tenants, then POST ${url}/v1/admin/tenants/<id>/keys`
      : "  no ARBOR_ADMIN_KEY set: admin routes are off, so no new API keys can be made",
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await runs.close();
        // Let the streams of this instance send the terminal event of the runs just ended:
        // idle connections go now, streams end by themselves once written (bounded wait).
        if (cluster) {
          const http = server as unknown as { closeIdleConnections?: () => void };
          http.closeIdleConnections?.();
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            closed,
            new Promise((resolve) => {
              timer = setTimeout(resolve, 2000);
            }),
          ]);
          clearTimeout(timer);
        }
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        await closed;
        await log.close();
        await cluster?.close();
        await store.close();
        extensions.close();
      })();
      return closing;
    },
  };
}
