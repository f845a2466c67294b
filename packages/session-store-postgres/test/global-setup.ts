import type { TestProject } from "vitest/node";
import { findPgBinaries, PgCluster, pgPlan } from "../src/test/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The shared throwaway cluster (fsync off), or why the PostgreSQL tests are skipped. */
    pg: { ok: true; connectionString: string; bindir: string } | { ok: false; reason: string };
  }
}

/**
 * Starts one throwaway PostgreSQL cluster (fsync off) for the whole run and removes it
 * after. Without the server binaries the PostgreSQL tests are skipped with a loud note,
 * except under `CI=true`, where that is a failure.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const plan = pgPlan(findPgBinaries({ path: process.env.PATH ?? "" }), process.env);
  if (plan.action === "fail") throw new Error(plan.message);
  if (plan.action === "skip") {
    console.warn(plan.note);
    project.provide("pg", { ok: false, reason: plan.reason });
    return async () => {};
  }
  const started = performance.now();
  const cluster = await PgCluster.start(plan.bindir);
  const ms = Math.round(performance.now() - started);
  project.provide("pg", {
    ok: true,
    connectionString: cluster.info.connectionString,
    bindir: plan.bindir,
  });
  console.info(`throwaway PostgreSQL on port ${cluster.info.port}, started in ${ms} ms`);
  return () => cluster.destroy();
}
