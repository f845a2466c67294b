// The ceiling of awaited appends on this machine: a bare INSERT per message (autocommit, so
// one WAL flush per commit with synchronous_commit on) through the pg driver, on a
// throwaway cluster with the benchmark's settings, next to the store's own appends.
// `node bench/ceiling.mjs` after `pnpm build`. Progress to stderr, the table to stdout.
import { hostname } from "node:os";
import pg from "pg";
import { PostgresSessionStore } from "../dist/index.js";
import { findPgBinaries, PgCluster } from "../dist/test/index.js";
import { median, message } from "./conversation.mjs";

const ROUNDS = 3;
const binaries = findPgBinaries({ path: process.env.PATH ?? "" });
if (!binaries.ok) throw new Error(binaries.reason);
const cluster = await PgCluster.start(binaries.bindir, { fsync: true });
const conn = cluster.info.connectionString;
const pool = new pg.Pool({ connectionString: conn, max: 100 });
await pool.query(
  "CREATE TABLE bare (session_id text, seq bigint, entry json, PRIMARY KEY (session_id, seq))",
);
const line = (i) => JSON.stringify({ type: "message", id: `e${i}`, message: message(i) });

async function bare(sessions, each) {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      const client = await pool.connect();
      const id = `${hostname()}-${s}-${Math.random()}`;
      try {
        for (let i = 0; i < each; i++)
          await client.query({
            name: "bare",
            text: "INSERT INTO bare VALUES ($1, $2, $3::json)",
            values: [id, i, line(i)],
          });
      } finally {
        client.release();
      }
    }),
  );
  return ((sessions * each) / (performance.now() - started)) * 1000;
}

const store = await PostgresSessionStore.connect({ connectionString: conn, maxConnections: 100 });
async function arbor(sessions, each) {
  // Creating and closing a session are not appends: they happen outside the timed part.
  const made = await Promise.all(
    Array.from({ length: sessions }, () => store.create({ cwd: "/bench" })),
  );
  const started = performance.now();
  await Promise.all(
    made.map(async (session) => {
      for (let i = 0; i < each; i++) await session.appendMessage(message(i));
    }),
  );
  const rate = ((sessions * each) / (performance.now() - started)) * 1000;
  await Promise.all(made.map((session) => session.close()));
  return rate;
}

const out = [];
for (const [name, sessions, each] of [
  ["one session", 1, 1000],
  ["100 sessions at once", 100, 60],
]) {
  const results = { bare: [], arbor: [] };
  // Untimed warm-up, as in run.mjs: the driver's hot path is compiled by its end.
  await bare(sessions, 3000 / sessions);
  await arbor(sessions, 3000 / sessions);
  for (let round = 0; round < ROUNDS; round++) {
    results.bare.push(await bare(sessions, each));
    results.arbor.push(await arbor(sessions, each));
  }
  const b = median(results.bare);
  const a = median(results.arbor);
  out.push(`| ${name} | ${Math.round(b)} | ${Math.round(a)} | ${(a / b).toFixed(2)}× |`);
  process.stderr.write(
    `${out.at(-1)}  bare ${results.bare.map(Math.round)} arbor ${results.arbor.map(Math.round)}\n`,
  );
}
await store.close();
await pool.end();
await cluster.destroy();
console.log("| awaited appends/s | bare INSERT (autocommit) | Arbor PostgreSQL | of the ceiling |");
console.log("| --- | --- | --- | --- |");
for (const row of out) console.log(row);
