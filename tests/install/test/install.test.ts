import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { findPgBinaries, PgCluster, pgPlan } from "@arbor/session-store-postgres/test";
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  LocalRegistry,
  newProject,
  type Project,
  publishedPackages,
  run,
  type WorkspacePackage,
} from "./registry.js";

let registry: LocalRegistry;
let packages: WorkspacePackage[];
const projects: Project[] = [];

beforeAll(async () => {
  packages = await publishedPackages();
  registry = await LocalRegistry.start();
  await registry.publish(packages);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  for (const project of projects) await rm(project.dir, { recursive: true, force: true });
});

async function project(name: string): Promise<Project> {
  const made = await newProject(registry, name);
  projects.push(made);
  return made;
}

function versionOf(name: string): string {
  const found = packages.find((pkg) => pkg.name === name);
  if (!found) throw new Error(`${name} is not a published package of the workspace`);
  return found.version;
}

/** The first TypeScript example of a package's README, compiled to a runnable module. */
async function firstReadmeExample(pkg: string): Promise<string> {
  const dir = packages.find((p) => p.name === pkg)?.dir as string;
  const readme = await readFile(join(dir, "README.md"), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!code) throw new Error(`${pkg}'s README has no TypeScript example`);
  return ts.transpileModule(code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

/** The file `pnpm pack` writes for a package. */
function tarballName(pkg: WorkspacePackage): string {
  return `${pkg.name.replace("@", "").replace("/", "-")}-${pkg.version}.tgz`;
}

/** The bare module specifiers (not relative, not `node:`) the JavaScript files of a folder import. */
async function bareImports(dir: string): Promise<Set<string>> {
  const found = new Set<string>();
  const name = String.raw`(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w./-]*)?`;
  const pattern = new RegExp(
    String.raw`(?:from\s*|import\s*\(\s*|import\s+|require\s*\(\s*)["'](${name})["']`,
    "g",
  );
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.(m?js|cjs)$/.test(entry.name)) continue;
    const text = await readFile(join(entry.parentPath, entry.name), "utf8");
    for (const match of text.matchAll(pattern)) {
      const specifier = match[1] as string;
      if (
        specifier.startsWith("node:") ||
        builtinModules.includes(specifier.split("/")[0] as string)
      )
        continue;
      found.add(specifier);
    }
  }
  return found;
}

/** The packages in a project's `node_modules` (npm installs flat: every dependency, at any depth). */
async function installedPackages(dir: string): Promise<string[]> {
  const root = join(dir, "node_modules");
  const names: string[] = [];
  for (const name of await readdir(root)) {
    if (name.startsWith(".")) continue;
    if (!name.startsWith("@")) names.push(name);
    else for (const inner of await readdir(join(root, name))) names.push(`${name}/${inner}`);
  }
  return names.sort();
}

describe("what the registry ships", () => {
  it("every package ships its dist, its README with an install line, and nothing of the repository", async () => {
    const tarballs = join(registry.root, "tarballs");
    const missingInstallLine: string[] = [];
    for (const pkg of packages) {
      const file = tarballName(pkg);
      expect(existsSync(join(tarballs, file)), pkg.name).toBe(true);
      const { stdout } = await run("tar", ["tzf", join(tarballs, file as string)], {
        cwd: tarballs,
      });
      const files = stdout.trim().split("\n");
      const allowed = /^package\/(dist\/|README\.md$|CHANGELOG\.md$|LICENSE|package\.json$)/;
      const data = /^package\/(fixtures|scenarios)\//; // the harness's scenario files
      const stray = files.filter(
        (f) => !allowed.test(f) && !(pkg.name === "@arbor/test-harness" && data.test(f)),
      );
      expect(stray, pkg.name).toEqual([]);
      expect(
        files.some((f) => f.startsWith("package/dist/")),
        pkg.name,
      ).toBe(true);
      expect(
        files.some((f) => /\.test\.|\.test-d\./.test(f)),
        pkg.name,
      ).toBe(false);
      const readme = await readFile(join(pkg.dir, "README.md"), "utf8");
      const escaped = pkg.name.replace("/", "\\/");
      const install = new RegExp(`^(pnpm add|npm i(nstall)?)\\b.* ${escaped}( |$)`, "m");
      if (!install.test(readme)) missingInstallLine.push(pkg.name);
    }
    expect(missingInstallLine, "READMEs without an install line").toEqual([]);
  });

  it("every package passes publint and are-the-types-wrong (ESM, types under node16 and bundler)", async () => {
    const tarballs = join(registry.root, "tarballs");
    const problems: string[] = [];
    for (const pkg of packages) {
      const tarball = await readFile(join(tarballs, tarballName(pkg)));
      const linted = await publint({
        pack: { tarball: new Uint8Array(tarball).buffer },
        strict: true,
      });
      for (const message of linted.messages) {
        problems.push(
          `${pkg.name} (publint): ${formatMessage(message, linted.pkg) ?? message.code}`,
        );
      }
      const checked = await checkPackage(createPackageFromTarballData(new Uint8Array(tarball)));
      if (!checked.types) {
        problems.push(`${pkg.name} (attw): no types`);
        continue;
      }
      // ESM only, as the design says: CommonJS `require` and node10 resolution are not offered.
      for (const problem of checked.problems) {
        const kind = "resolutionKind" in problem ? problem.resolutionKind : undefined;
        const option = "resolutionOption" in problem ? problem.resolutionOption : undefined;
        if (kind === "node10" || kind === "node16-cjs" || option === "node10") continue;
        problems.push(`${pkg.name} (attw): ${JSON.stringify(problem)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("every bare import of a package's dist is a dependency or peer it declares", async () => {
    const undeclared: string[] = [];
    for (const pkg of packages) {
      const manifest = JSON.parse(await readFile(join(pkg.dir, "package.json"), "utf8")) as {
        name: string;
        dependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
      };
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
        ...Object.keys(manifest.optionalDependencies ?? {}),
      ]);
      for (const specifier of await bareImports(join(pkg.dir, "dist"))) {
        const name = specifier.startsWith("@")
          ? specifier.split("/").slice(0, 2).join("/")
          : (specifier.split("/")[0] as string);
        if (!declared.has(name)) undeclared.push(`${pkg.name} imports ${specifier}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  it("a package published with workspace ranges names real versions of its Arbor dependencies", async () => {
    const response = await fetch(`${registry.url}@arbor%2fcli`);
    const manifest = (await response.json()) as {
      versions: Record<string, { dependencies?: Record<string, string> }>;
    };
    const dependencies = manifest.versions[versionOf("@arbor/cli")]?.dependencies ?? {};
    const arbor = Object.entries(dependencies).filter(([name]) => name.startsWith("@arbor/"));
    expect(arbor.length).toBeGreaterThan(0);
    for (const [name, range] of arbor) {
      expect(range, name).not.toContain("workspace:");
      expect(range, name).toContain(versionOf(name));
    }
  });
});

describe("@arbor/session-store alone", () => {
  for (const client of ["npm", "pnpm"] as const) {
    it(`installs with ${client}, zod its only dependency, and runs the README's first example`, async () => {
      const p = await project(`store-${client}`);
      const args =
        client === "npm"
          ? ["install", "@arbor/session-store"]
          : ["add", "@arbor/session-store", "--config.confirmModulesPurge=false"];
      await run(client, args, { cwd: p.dir, env: p.env });
      if (client === "npm") {
        expect(await installedPackages(p.dir)).toEqual(["@arbor/session-store", "zod"]);
      } else {
        const manifest = JSON.parse(
          await readFile(join(p.dir, "node_modules/@arbor/session-store/package.json"), "utf8"),
        ) as { dependencies?: Record<string, string> };
        expect(Object.keys(manifest.dependencies ?? {})).toEqual(["zod"]);
      }
      await writeFile(join(p.dir, "example.mjs"), await firstReadmeExample("@arbor/session-store"));
      const { stdout } = await run("node", ["example.mjs"], { cwd: p.dir, env: p.env });
      const lines = stdout.trim().split("\n");
      // The context of the second branch (question and retry), the title, the listing.
      expect(lines[0]).toBe("2");
      expect(lines[1]).toBe("Why is the build slow?");
      expect(lines[2]).toBe("Why is the build slow? 3");
    });
  }
});

describe("@arbor/session-store-postgres", () => {
  const plan = pgPlan(findPgBinaries({ path: process.env.PATH ?? "" }), process.env);
  if (plan.action === "fail") throw new Error(plan.message);
  it.skipIf(plan.action === "skip")(
    "installs and stores a session in PostgreSQL that a second connection reads back",
    async () => {
      if (plan.action !== "start") return;
      const cluster = await PgCluster.start(plan.bindir);
      try {
        const p = await project("postgres");
        await run("npm", ["install", "@arbor/session-store-postgres"], { cwd: p.dir, env: p.env });
        await writeFile(
          join(p.dir, "store.mjs"),
          [
            'import { PostgresSessionStore } from "@arbor/session-store-postgres";',
            "const url = process.env.DATABASE_URL;",
            "const store = await PostgresSessionStore.connect({ connectionString: url });",
            'const session = await store.create({ cwd: "/project" });',
            'await session.appendMessage({ role: "user", content: "hello", timestamp: Date.now() });',
            "await session.close();",
            "await store.close();",
            "const reader = await PostgresSessionStore.connect({ connectionString: url });",
            "const again = await reader.open(session.id, { readOnly: true });",
            "console.log(JSON.stringify(again.buildSessionContext().messages.map((m) => m.content)));",
            "await again.close();",
            "await reader.close();",
          ].join("\n"),
        );
        const { stdout } = await run("node", ["store.mjs"], {
          cwd: p.dir,
          env: { ...p.env, DATABASE_URL: cluster.connectionString },
        });
        expect(JSON.parse(stdout.trim())).toEqual(["hello"]);
      } finally {
        await cluster.destroy();
      }
    },
  );
});

describe("@arbor/extensions-api alone", () => {
  it("a plugin that imports values from the API type-checks and loads", async () => {
    const p = await project("plugin");
    await run("npm", ["install", "@arbor/extensions-api", "typescript@~5.9.3", "@types/node@20"], {
      cwd: p.dir,
      env: p.env,
    });
    const extensions = join(p.dir, ".arbor", "extensions");
    await mkdir(extensions, { recursive: true });
    await writeFile(
      join(extensions, "stamp.ts"),
      [
        'import { EXTENSIONS_DIR, type ExtensionAPI, toolExecuteResultSchema } from "@arbor/extensions-api";',
        "",
        "export default function stamp(arbor: ExtensionAPI): void {",
        '  arbor.registerCommand("stamp", {',
        '    description: "Stamps the session (extensions live in " + EXTENSIONS_DIR + ")",',
        "    handler: async () => {",
        '      toolExecuteResultSchema.parse({ content: "ok" });',
        "    },",
        "  });",
        "}",
        "",
      ].join("\n"),
    );
    await writeFile(
      join(p.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          types: ["node"],
        },
        include: [".arbor/extensions/*.ts"],
      }),
    );
    await run("npx", ["tsc", "-p", "."], { cwd: p.dir, env: p.env });
    await writeFile(
      join(p.dir, "load.mjs"),
      [
        'import { ExtensionRunner } from "@arbor/extensions-api";',
        "const errors = [];",
        "const runner = new ExtensionRunner({",
        "  cwd: process.cwd(),",
        "  includeProject: true,",
        "  onError: (e) => errors.push(String(e.error)),",
        "});",
        "const loaded = await runner.loadAll();",
        "console.log(JSON.stringify({",
        "  loaded: loaded.map((e) => e.name),",
        "  commands: runner.getCommands().map((c) => c.description),",
        "  errors,",
        "}));",
      ].join("\n"),
    );
    const { stdout } = await run("node", ["load.mjs"], { cwd: p.dir, env: p.env });
    expect(JSON.parse(stdout.trim())).toEqual({
      loaded: ["stamp"],
      commands: ["Stamps the session (extensions live in .arbor/extensions)"],
      errors: [],
    });
  });
});

describe("the apps, installed", () => {
  it("@arbor/cli installs globally: `arbor --version` and an offline `arbor demo`", async () => {
    const p = await project("cli");
    const prefix = join(p.dir, "global");
    await run("npm", ["install", "--global", "--prefix", prefix, "@arbor/cli"], {
      cwd: p.dir,
      env: p.env,
    });
    const arbor = join(prefix, "bin", "arbor");
    const version = await run(arbor, ["--version"], { cwd: p.dir, env: p.env });
    expect(version.stdout.trim()).toBe(`arbor ${versionOf("@arbor/cli")}`);
    const demo = await run(arbor, ["demo"], { cwd: p.dir, env: p.env });
    const out = demo.stdout + demo.stderr;
    const sessionFile = /(\S+\.jsonl)/.exec(out)?.[1];
    const page = /(\S+\.html)/.exec(out)?.[1];
    expect(sessionFile, out).toBeDefined();
    expect(page, out).toBeDefined();
    expect(existsSync(sessionFile as string)).toBe(true);
    expect(await readFile(page as string, "utf8")).toContain("<!doctype html>");
  });

  it("@arbor/server installs: `arbor-server --help`, then it starts and answers /health", async () => {
    const p = await project("server");
    await run("npm", ["install", "@arbor/server"], { cwd: p.dir, env: p.env });
    const bin = join(p.dir, "node_modules", ".bin", "arbor-server");
    const help = await run(bin, ["--help"], { cwd: p.dir, env: p.env });
    expect(help.stdout).toContain("Usage: arbor-server");
    const child = spawn(bin, ["--port", "0", "--home", join(p.home, ".arbor")], {
      cwd: p.dir,
      env: p.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let output = "";
        const seen = (chunk: Buffer) => {
          output += chunk.toString();
          const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
          if (found) resolve(found);
        };
        child.stdout.on("data", seen);
        child.stderr.on("data", seen);
        child.once("exit", (code) =>
          reject(new Error(`arbor-server exited (${code}):\n${output}`)),
        );
      });
      const health = await fetch(`${url}/health`);
      expect(health.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
