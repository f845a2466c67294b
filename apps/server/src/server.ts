import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { FileSessionStore, type SessionStore } from "@arbor/session-store";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
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
  const { agents, providers } = await loadServerAgents(config, options.configPath, context.env);
  const adminKey = context.env.ARBOR_ADMIN_KEY?.trim() || undefined;
  if (adminKey !== undefined && adminKey.length < 16) {
    throw new ServerConfigError("ARBOR_ADMIN_KEY", "ARBOR_ADMIN_KEY", "use at least 16 characters");
  }
  let store: SessionStore;
  if (database !== undefined) {
    try {
      store = await PostgresSessionStore.connect({ connectionString: database });
    } catch (error) {
      throw new ServerConfigError(
        "--database",
        "database",
        `cannot connect: ${(error as Error).message}`,
      );
    }
  } else {
    store = new FileSessionStore({ root: join(home, "sessions") });
  }
  const keys = new FileApiKeyStore(join(home, "server", "api-keys.json"));
  const log = new FileRunEventLog(join(home, "server", "runs"));
  const runs = new RunService({
    store,
    log,
    agents,
    models: providers,
    maxPromptChars: config.limits.promptChars,
  });
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
    reportError: (error) =>
      context.print(`arbor-server: internal error: ${(error as Error)?.stack ?? String(error)}`),
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
    `  store: ${database !== undefined ? "PostgreSQL" : join(home, "sessions")}; agents: ${[...agents.keys()].join(", ") || "(none configured)"}`,
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
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        await closed;
        await log.close();
        await store.close();
      })();
      return closing;
    },
  };
}
