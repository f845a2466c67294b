import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Where `initdb`, `pg_ctl` and `postgres` are: Debian's versioned folders, then the PATH. */
export function findPgBindir(): string | undefined {
  const candidates: string[] = [];
  try {
    const versions = readdirSync("/usr/lib/postgresql").filter((n) => /^\d+$/.test(n));
    versions.sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(join("/usr/lib/postgresql", version, "bin"));
  } catch {
    // No Debian server package.
  }
  for (const dir of (process.env.PATH ?? "").split(":")) if (dir) candidates.push(dir);
  return candidates.find((dir) =>
    ["initdb", "pg_ctl", "postgres"].every((n) => existsSync(join(dir, n))),
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(address),
      );
    });
  });
}

/** A throwaway PostgreSQL cluster (fsync off) on a free loopback port, in a temporary folder. */
export class PgCluster {
  private constructor(
    readonly connectionString: string,
    private readonly root: string,
    private readonly bindir: string,
    private readonly asPostgres: boolean,
  ) {}

  /** Runs `initdb` and starts the server; as root, both run as the `postgres` user. */
  static async start(bindir: string): Promise<PgCluster> {
    const root = mkdtempSync(join(tmpdir(), "arbor-server-pg-"));
    const asPostgres = process.getuid?.() === 0;
    if (asPostgres) {
      const id = (flag: string) =>
        Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }));
      chownSync(root, id("-u"), id("-g"));
    }
    const port = await freePort();
    const cluster = new PgCluster(
      `postgresql://postgres@127.0.0.1:${port}/postgres`,
      root,
      bindir,
      asPostgres,
    );
    const data = join(root, "data");
    await cluster.exec("initdb", [
      "-D",
      data,
      "-U",
      "postgres",
      "-A",
      "trust",
      "--no-sync",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
    const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${root} -c fsync=off -c synchronous_commit=off -c max_connections=100`;
    await cluster.exec("pg_ctl", [
      "-D",
      data,
      "-o",
      settings,
      "-l",
      join(root, "server.log"),
      "-w",
      "start",
    ]);
    return cluster;
  }

  /**
   * Stops the server as a restart does (`-m fast`: every connection is cut at once, committed
   * work is flushed; `immediate` would lose acknowledged commits under synchronous_commit=off).
   */
  async stop(): Promise<void> {
    await this.exec("pg_ctl", ["-D", join(this.root, "data"), "-m", "fast", "-w", "stop"]);
  }

  /** Starts the stopped server again on the same port and data. */
  async restart(): Promise<void> {
    const port = new URL(this.connectionString).port;
    const settings = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.root} -c fsync=off -c synchronous_commit=off -c max_connections=100`;
    await this.exec("pg_ctl", [
      "-D",
      join(this.root, "data"),
      "-o",
      settings,
      "-l",
      join(this.root, "server.log"),
      "-w",
      "start",
    ]);
  }

  /** Stops the server and removes its folder. */
  async destroy(): Promise<void> {
    await this.exec("pg_ctl", [
      "-D",
      join(this.root, "data"),
      "-m",
      "immediate",
      "-w",
      "stop",
    ]).catch(() => undefined);
    rmSync(this.root, { recursive: true, force: true });
  }

  private async exec(tool: string, args: string[]): Promise<void> {
    const binary = join(this.bindir, tool);
    const [file, argv] = this.asPostgres
      ? ["runuser", ["-u", "postgres", "--", binary, ...args]]
      : [binary, args];
    await run(file, argv, { cwd: tmpdir() });
  }
}

/**
 * A suite's missing prerequisite: under `CI=true` the run fails (a missing server never
 * passes for a green run), elsewhere the suite is skipped with a note.
 */
export function failUnderCi(missing: string | undefined, suite: string): void {
  if (!missing) return;
  if (process.env.CI === "true") throw new Error(`${suite} cannot run: ${missing}`);
  console.warn(`SKIPPING ${suite}: ${missing}`);
}
