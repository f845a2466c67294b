import { execFile, execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The PostgreSQL server binaries this machine has, or why there are none. */
export type PgBinaries = { ok: true; bindir: string } | { ok: false; reason: string };

/** Where {@link findPgBinaries} looks; parameters so tests can look where nothing is. */
export interface PgBinaryPlaces {
  /** The folders of the `PATH` (the caller passes its environment's). */
  path: string;
  pgConfig?: string;
  debianRoot?: string;
}

/**
 * Finds `initdb`, `pg_ctl` and `postgres`: `pg_config --bindir` first, then Debian's
 * `/usr/lib/postgresql/<version>/bin` (newest version), then the `PATH`.
 */
export function findPgBinaries(where: PgBinaryPlaces): PgBinaries {
  const pgConfig = where.pgConfig ?? "pg_config";
  const debianRoot = where.debianRoot ?? "/usr/lib/postgresql";
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync(pgConfig, ["--bindir"], { encoding: "utf8" }).trim());
  } catch {
    // pg_config comes with libpq-dev; Debian's server package has no need of it.
  }
  try {
    const versions = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) candidates.push(join(debianRoot, version, "bin"));
  } catch {
    // No Debian server package.
  }
  for (const dir of where.path.split(":")) if (dir) candidates.push(dir);
  const bindir = candidates.find((dir) =>
    ["initdb", "pg_ctl", "postgres"].every((name) => existsSync(join(dir, name))),
  );
  if (bindir) return { ok: true, bindir };
  return {
    ok: false,
    reason:
      "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found via pg_config, " +
      "/usr/lib/postgresql/*/bin or PATH; install Debian's `postgresql` package (.ci/system-deps)",
  };
}

/** What a test run does about PostgreSQL. */
export type PgPlan =
  | { action: "start"; bindir: string }
  | { action: "skip"; reason: string; note: string }
  | { action: "fail"; message: string };

/**
 * What a test run does about PostgreSQL: use the binaries, skip with a loud note, or (under
 * `CI=true`, where a missing server is a broken machine) fail.
 */
export function pgPlan(binaries: PgBinaries, env: Record<string, string | undefined>): PgPlan {
  if (binaries.ok) return { action: "start", bindir: binaries.bindir };
  if (env.CI === "true") return { action: "fail", message: `CI=true and ${binaries.reason}` };
  const bar = "!".repeat(78);
  return {
    action: "skip",
    reason: binaries.reason,
    note: `\n${bar}\n  SKIPPING the PostgreSQL tests: ${binaries.reason}\n${bar}\n`,
  };
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
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

/** Settings of a throwaway cluster. */
export interface ClusterOptions {
  /** Production-like durability (fsync, synchronous_commit). Default false: faster tests. */
  fsync?: boolean;
}

/** What tests need to reach a throwaway cluster. */
export interface ClusterInfo {
  connectionString: string;
  port: number;
  dataDir: string;
  bindir: string;
  asPostgresUser: boolean;
  /** The server settings given to `pg_ctl start -o`. */
  settings: string;
}

/** A throwaway PostgreSQL cluster in a temporary directory. */
export class PgCluster {
  private constructor(readonly info: ClusterInfo) {}

  /**
   * Runs `initdb` into a new temporary directory and starts the server on a free loopback
   * port, its unix socket inside that directory. As root, runs both as `postgres`.
   */
  static async start(bindir: string, options: ClusterOptions = {}): Promise<PgCluster> {
    const root = mkdtempSync(join(tmpdir(), "arbor-pg-"));
    const asPostgresUser = process.getuid?.() === 0;
    if (asPostgresUser) {
      const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }));
      const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }));
      chownSync(root, uid, gid);
    }
    const dataDir = join(root, "data");
    const port = await freePort();
    const fsync = options.fsync ? "on" : "off";
    const settings = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${root}`,
      `-c fsync=${fsync}`,
      `-c synchronous_commit=${fsync}`,
      `-c full_page_writes=${fsync}`,
      "-c max_connections=200",
      "-c shared_buffers=128MB",
    ].join(" ");
    const cluster = new PgCluster({
      connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      port,
      dataDir,
      bindir,
      asPostgresUser,
      settings,
    });
    await cluster.exec("initdb", [
      "-D",
      dataDir,
      "-U",
      "postgres",
      "-A",
      "trust",
      "--no-sync",
      "--no-instructions",
      "-E",
      "UTF8",
      "--locale=C",
    ]);
    await cluster.restart();
    return cluster;
  }

  /** The URL to connect to, as the `postgres` user (trusted on loopback). */
  get connectionString(): string {
    return this.info.connectionString;
  }

  /** Rebuilds a handle on a cluster started elsewhere (a global setup). */
  static attach(info: ClusterInfo): PgCluster {
    return new PgCluster(info);
  }

  /** Starts the (stopped) server with its settings; waits until it accepts connections. */
  async restart(): Promise<void> {
    const log = join(this.info.dataDir, "..", "server.log");
    await this.exec("pg_ctl", [
      "-D",
      this.info.dataDir,
      "-o",
      this.info.settings,
      "-l",
      log,
      "-w",
      "start",
    ]);
  }

  /** Stops the server: `immediate` is a crash (no checkpoint), as after a power cut. */
  async stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    await this.exec("pg_ctl", ["-D", this.info.dataDir, "-m", mode, "-w", "stop"]);
  }

  /** Stops the server (if running) and removes its directory. */
  async destroy(): Promise<void> {
    await this.stop("immediate").catch(() => undefined);
    rmSync(join(this.info.dataDir, ".."), { recursive: true, force: true });
  }

  private async exec(tool: string, args: readonly string[]): Promise<void> {
    const binary = join(this.info.bindir, tool);
    const [file, argv] = this.info.asPostgresUser
      ? ["runuser", ["-u", "postgres", "--", binary, ...args]]
      : [binary, [...args]];
    await run(file, argv, { cwd: tmpdir() });
  }
}
