import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { findPgBinaries, PgCluster, pgPlan } from "../src/test/index.js";

const provided = inject("pg");

describe.skipIf(!provided.ok)("the throwaway PostgreSQL cluster", () => {
  it("serves the shared cluster to every test file", async () => {
    if (!provided.ok) return;
    const client = new pg.Client(provided.connectionString);
    await client.connect();
    const { rows } = await client.query("select current_setting('fsync') as fsync");
    await client.end();
    expect(rows).toEqual([{ fsync: "off" }]);
  });

  it("starts a cluster with fsync on, stops it as a crash, restarts it and removes it", async () => {
    if (!provided.ok) return;
    const started = performance.now();
    const cluster = await PgCluster.start(provided.bindir, { fsync: true });
    const startMs = performance.now() - started;
    try {
      const client = new pg.Client(cluster.info.connectionString);
      await client.connect();
      await client.query("create table t (x int); insert into t values (1)");
      const { rows } = await client.query("select current_setting('fsync') as fsync");
      expect(rows).toEqual([{ fsync: "on" }]);
      client.on("error", () => undefined);
      await cluster.stop("immediate");
      await cluster.restart();
      const again = new pg.Client(cluster.info.connectionString);
      await again.connect();
      expect((await again.query("select x from t")).rows).toEqual([{ x: 1 }]);
      await again.end();
    } finally {
      await cluster.destroy();
    }
    // The target is half a second on an idle machine; a tenth of it is asserted here.
    expect(startMs).toBeLessThan(5_000);
  });
});

describe("finding PostgreSQL", () => {
  const nowhere = { pgConfig: "/nonexistent/pg_config", debianRoot: "/nonexistent", path: "" };

  it("finds Debian's binaries by pg_config, /usr/lib/postgresql/*/bin or PATH, or says why not", () => {
    const missing = findPgBinaries(nowhere);
    expect(missing).toMatchObject({ ok: false });
    expect(missing.ok ? "" : missing.reason).toMatch(/initdb.*postgresql/);
    if (!provided.ok) return;
    expect(findPgBinaries({ ...nowhere, path: `/nonexistent:${provided.bindir}` })).toEqual({
      ok: true,
      bindir: provided.bindir,
    });
    const debianRoot = provided.bindir.replace(/\/\d+\/bin$/, "");
    if (debianRoot !== provided.bindir) {
      expect(findPgBinaries({ ...nowhere, debianRoot })).toMatchObject({ ok: true });
    }
  });

  it("skips loudly without the binaries, and fails under CI=true", () => {
    const missing = findPgBinaries({
      pgConfig: "/nonexistent/pg_config",
      debianRoot: "/nonexistent",
      path: "",
    });
    for (const env of [{}, { CI: "false" }, { CI: "1" }]) {
      const plan = pgPlan(missing, env);
      expect(plan.action).toBe("skip");
      expect(plan.action === "skip" && plan.note).toMatch(/SKIPPING the PostgreSQL tests/);
    }
    expect(pgPlan(missing, { CI: "true" })).toMatchObject({
      action: "fail",
      message: expect.stringMatching(/CI=true.*initdb/),
    });
    expect(pgPlan({ ok: true, bindir: "/b" }, { CI: "true" })).toEqual({
      action: "start",
      bindir: "/b",
    });
  });
});
