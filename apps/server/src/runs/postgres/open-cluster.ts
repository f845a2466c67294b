import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { AgentDefinition, AgentHostOptions, AgentNode } from "@arbor/orchestration";
import type { PostgresSessionStore } from "@arbor/session-store-postgres";
import { losslessPool } from "@arbor/session-store-postgres";
import pg from "pg";
import { PostgresApiKeyStore } from "../../auth/postgres-api-key-store.js";
import type { ClusterSettings } from "../../config/cluster-settings.js";
import type { ServerExtensions } from "../../extensions/server-extensions.js";
import { RunExecution } from "../run-execution.js";
import { RunService } from "../run-service.js";
import { PostgresRunAdmission } from "./postgres-run-admission.js";
import { PostgresRunEventLog } from "./postgres-run-event-log.js";
import { applyServerMigrations } from "./server-migrations.js";

/** What an instance of a cluster shares through PostgreSQL. */
export interface ClusterParts {
  keys: PostgresApiKeyStore;
  log: PostgresRunEventLog;
  /** Runs admitted through the `runs` table, executed by whichever instance claims them. */
  runs: RunService;
  instanceId: string;
  /** Checks the database answers (for `/ready`). */
  ready: () => Promise<void>;
  /** Ends the runs (graceful), then the pool. */
  close: () => Promise<void>;
}

/**
 * Opens this instance's share of a cluster on the session store's database: the server's
 * tables (migrated once however many instances start), keys, the run log and the runs.
 */
export async function openCluster(options: {
  connectionString: string;
  store: PostgresSessionStore;
  settings: ClusterSettings;
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  models: AgentHostOptions["models"];
  maxPromptChars: number;
  extensions?: ServerExtensions;
  report: (error: unknown) => void;
}): Promise<ClusterParts> {
  const { settings, store } = options;
  // Strings sent are escaped and strings read restored, as the session store does them.
  const pool = losslessPool(
    new pg.Pool({ connectionString: options.connectionString, max: settings.maxConnections }),
  );
  pool.on("error", () => undefined);
  try {
    await applyServerMigrations(pool, store.schema);
    const instanceId =
      settings.instanceId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
    const db = { pool, schema: store.schema, instanceId, leaseTtlMs: settings.leaseTtlMs };
    const log = new PostgresRunEventLog(db);
    const serviceOptions = {
      store,
      log,
      agents: options.agents,
      models: options.models,
      maxPromptChars: options.maxPromptChars,
      ...(options.extensions ? { extensions: options.extensions } : {}),
    };
    const execution = new RunExecution({
      ...serviceOptions,
      now: () => new Date(),
      // A run of a dead instance may leave its session's write lease behind for a while.
      openRetryMs: settings.leaseTtlMs * 2,
    });
    const admission = await PostgresRunAdmission.start({
      db,
      log,
      executor: execution,
      connectionString: options.connectionString,
      store,
      agents: options.agents,
      models: options.models,
      pollMs: settings.pollMs,
      eventRetentionMs: settings.eventRetentionMs,
      maxRunsPerInstance: settings.maxRunsPerInstance,
      report: options.report,
    });
    const runs = new RunService(serviceOptions, {
      execution,
      admission,
      graceMs: settings.shutdownGraceMs,
    });
    return {
      keys: new PostgresApiKeyStore(pool, store.schema),
      log,
      runs,
      instanceId,
      ready: async () => {
        await pool.query("SELECT 1");
      },
      close: async () => {
        await runs.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
