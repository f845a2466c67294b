import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort } from "@arbor/session-store-postgres/test";

const exec = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
/** The repository the packages are published from. */
export const repositoryRoot = resolve(here, "../../..");

/** A published package of the workspace: its name, version and folder. */
export interface WorkspacePackage {
  name: string;
  version: string;
  dir: string;
}

/** Every package of `packages/` and `apps/` that is not private. */
export async function publishedPackages(): Promise<WorkspacePackage[]> {
  const found: WorkspacePackage[] = [];
  for (const group of ["packages", "apps"]) {
    for (const name of (await readdir(join(repositoryRoot, group))).sort()) {
      const dir = join(repositoryRoot, group, name);
      const manifest = JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as {
        name: string;
        version: string;
        private?: boolean;
      };
      if (!manifest.private) found.push({ name: manifest.name, version: manifest.version, dir });
    }
  }
  return found;
}

/** Runs a command; resolves with its output, rejects with the output in the message. */
export async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(file, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      timeout: options.timeoutMs ?? 540_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr };
  } catch (error) {
    const failed = error as {
      stdout?: string;
      stderr?: string;
      message: string;
      signal?: string | null;
      killed?: boolean;
    };
    const how = failed.killed ? ` (killed by ${failed.signal ?? "a signal"}: out of time?)` : "";
    throw new Error(
      `${file} ${args.join(" ")} failed in ${options.cwd}${how}: ${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`,
    );
  }
}

/**
 * A throwaway npm registry (verdaccio) on a free loopback port, with its storage in a
 * temporary folder: `@arbor/*` packages are served from it and published to it without a
 * login; every other package comes from the registry the machine is configured with.
 */
export class LocalRegistry {
  private constructor(
    readonly url: string,
    readonly root: string,
    private readonly child: ChildProcess,
  ) {}

  static async start(): Promise<LocalRegistry> {
    const root = await mkdtemp(join(tmpdir(), "arbor-registry-"));
    const port = await freePort();
    const config = join(root, "config.yaml");
    await writeFile(
      config,
      [
        `storage: ${join(root, "storage")}`,
        "uplinks: {}",
        "packages:",
        "  '@arbor/*':",
        "    access: $all",
        "    publish: $anonymous",
        "  '**':",
        "    access: $all",
        "log: { type: stdout, format: json, level: warn }",
        "",
      ].join("\n"),
    );
    const bin = createRequire(import.meta.url).resolve("verdaccio/bin/verdaccio");
    const child = spawn(
      process.execPath,
      [bin, "--config", config, "--listen", `127.0.0.1:${port}`],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = `http://127.0.0.1:${port}/`;
    const registry = new LocalRegistry(url, root, child);
    // Waits for what the socket shows: the registry answering its ping.
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`the local registry exited (${child.exitCode}):\n${output}`);
      }
      const ok = await fetch(`${url}-/ping`)
        .then((response) => response.ok)
        .catch(() => false);
      if (ok) return registry;
      await new Promise((done) => setTimeout(done, 100));
    }
  }

  /** The `.npmrc` lines a project needs: `@arbor/*` from this registry, with a token to publish. */
  npmrc(): string {
    const host = this.url.replace(/^http:/, "");
    return `@arbor:registry=${this.url}\n${host}:_authToken=local-test-token\n`;
  }

  /** Packs each package as pnpm does (workspace ranges become versions) and publishes it. */
  async publish(packages: readonly WorkspacePackage[]): Promise<void> {
    const tarballs = join(this.root, "tarballs");
    const userconfig = join(this.root, "npmrc");
    await writeFile(userconfig, this.npmrc());
    for (const pkg of packages) {
      const { stdout } = await run("pnpm", ["pack", "--pack-destination", tarballs], {
        cwd: pkg.dir,
      });
      const tarball = stdout.trim().split("\n").at(-1) as string;
      await run(
        "npm",
        [
          "publish",
          tarball,
          "--registry",
          this.url,
          "--userconfig",
          userconfig,
          "--access",
          "public",
        ],
        { cwd: this.root },
      );
    }
  }

  async stop(): Promise<void> {
    this.child.kill("SIGTERM");
    await rm(this.root, { recursive: true, force: true });
  }
}

/** A clean project folder that installs `@arbor/*` from the registry; `home` is its own HOME. */
export interface Project {
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** The machine's global npm config file (a CA file, a proxy), as npm finds it before any change. */
let machineGlobalConfig: Promise<string> | undefined;
/** The machine's CA file for the registry, if npm is configured with one. */
let machineCaFile: Promise<string> | undefined;

/** Makes an empty project (a package.json and an .npmrc pointing `@arbor` at the registry). */
export async function newProject(registry: LocalRegistry, name: string): Promise<Project> {
  machineGlobalConfig ??= run("npm", ["config", "get", "globalconfig"], { cwd: tmpdir() }).then(
    ({ stdout }) => stdout.trim(),
  );
  machineCaFile ??= run("npm", ["config", "get", "cafile"], { cwd: tmpdir() }).then(({ stdout }) =>
    stdout.trim(),
  );
  const globalConfig = await machineGlobalConfig;
  const caFile = await machineCaFile;
  const dir = await mkdtemp(join(tmpdir(), `arbor-install-${name}-`));
  const home = join(dir, ".home");
  await writeFile(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `install-${name}`, version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  await writeFile(join(dir, ".npmrc"), registry.npmrc());
  // The user's own config too: a global install reads no project's .npmrc.
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".npmrc"), registry.npmrc());
  const env: NodeJS.ProcessEnv = { ...process.env };
  // pnpm and turbo set these for the test run; a user's shell does not have them.
  for (const key of Object.keys(env)) {
    if (/^(npm_|pnpm_|VITEST|TURBO_)/i.test(key)) delete env[key];
  }
  delete env.NODE_OPTIONS;
  Object.assign(env, {
    HOME: home,
    ARBOR_HOME: join(home, ".arbor"),
    // The machine's npm cache is shared, so third-party packages download once.
    npm_config_cache: join(process.env.HOME ?? tmpdir(), ".npm"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    // Third-party packages come from the cache when it has them, as a user's second install does.
    npm_config_prefer_offline: "true",
    // The machine's own settings (its CA file, a proxy) hold, also for `--global --prefix`,
    // which would otherwise look for the global config under the new prefix.
    npm_config_globalconfig: globalConfig,
  });
  if (caFile && caFile !== "null" && caFile !== "undefined") env.npm_config_cafile = caFile;
  return { dir, home, env };
}
