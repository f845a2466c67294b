import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// The repository's layering check (`pnpm lint` runs it), run as users run it: a child
// process over a workspace tree, reporting `file:line: reason` and exiting 1.
const SCRIPT = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "scripts",
  "check-layers.mjs",
);

const MEMBERS = {
  "packages/session-store": "@arbor/session-store",
  "packages/session-store-postgres": "@arbor/session-store-postgres",
  "packages/providers": "@arbor/providers",
  "packages/ttsr": "@arbor/ttsr",
  "packages/extensions-api": "@arbor/extensions-api",
  "packages/turn-runner": "@arbor/turn-runner",
  "packages/orchestration": "@arbor/orchestration",
  "packages/workspace": "@arbor/workspace",
  "packages/html-export": "@arbor/html-export",
  "apps/cli": "@arbor/cli",
  "apps/server": "@arbor/server",
  "apps/test-harness": "@arbor/test-harness",
} as const;

type Files = Record<string, string>;

/** A clean workspace: every member, each importing only what its layer allows. */
function cleanTree(): Files {
  const files: Files = {};
  for (const [dir, name] of Object.entries(MEMBERS)) {
    files[`${dir}/package.json`] = JSON.stringify({ name, dependencies: {} }, null, 2);
  }
  files["packages/session-store/package.json"] = manifest("@arbor/session-store", {
    dependencies: { zod: "^4" },
  });
  files["packages/turn-runner/package.json"] = manifest("@arbor/turn-runner", {
    dependencies: {
      "@arbor/providers": "workspace:*",
      "@arbor/ttsr": "workspace:*",
      "@arbor/extensions-api": "workspace:*",
      "@arbor/session-store": "workspace:*",
    },
  });
  files["apps/cli/package.json"] = manifest("@arbor/cli", {
    dependencies: { "@arbor/orchestration": "workspace:*", "@arbor/html-export": "workspace:*" },
    devDependencies: { "@arbor/turn-runner": "workspace:*", "@arbor/providers": "workspace:*" },
  });
  files["packages/session-store/src/index.ts"] = [
    "/** Reads a session. @example console.log(open(process.env.FILE)) */",
    "export const open = (path: string) => path;",
    "// console.log(process.env.HOME) is what an app would do, not this package",
    "/* process.env.X; console.error('x') */",
    'export const hint = "call console.log() or read process.env.HOME in your app";',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own source text
    "export const template = `console.log(${1}) process.env.${'A'}`;",
    'export const pattern = /console\\.log\\("/g;',
    "export const ratio = (a: number, b: number) => a / b / 2;",
    "export const plain = /console.log|process.env/; export const half = 1 / 2;",
    "export const quote = /\"/g; export const after = 'ok';",
    "export const myconsole = { log() {} }; myconsole.log();",
    "const holder = { process: { env: 1 }, console: { log: 1 } };",
    "export const nested = holder.process.env + holder.console.log;",
  ].join("\n");
  files["packages/session-store/src/open.test.ts"] = [
    'import { describe } from "vitest";',
    "console.log(process.env.CI);",
    'describe("open", () => {});',
  ].join("\n");
  files["packages/session-store/test/pi-fixtures.ts"] = "export const dir = process.env.PI ?? '';";
  files["packages/session-store/src/open.test.ts"] +=
    '\nimport { dir } from "../test/pi-fixtures.js";';
  files["packages/providers/src/index.ts"] = [
    'import type { Session } from "@arbor/session-store";',
    'export { ScriptedModel } from "./spec.js";',
  ].join("\n");
  files["packages/providers/src/spec.ts"] = "export class ScriptedModel {}";
  files["packages/providers/src/test/index.ts"] = [
    'import { createServer } from "node:http";',
    'import { ScriptedModel } from "../spec.js";',
    "export { createServer, ScriptedModel };",
  ].join("\n");
  files["packages/providers/bench/run.ts"] = [
    'import { ScriptedModel } from "@arbor/providers/test";',
    "console.log(ScriptedModel);",
  ].join("\n");
  files["packages/turn-runner/src/index.ts"] = [
    'import { Session } from "@arbor/session-store";',
    'import { ScriptedModel } from "@arbor/providers";',
    'import { TtsrManager } from "@arbor/ttsr";',
    'import { ExtensionRunner } from "@arbor/extensions-api";',
    'const lazy = () => import("@arbor/providers/openai");',
    "export { Session, ScriptedModel, TtsrManager, ExtensionRunner, lazy };",
  ].join("\n");
  files["packages/orchestration/src/index.ts"] =
    'export * from "@arbor/turn-runner";\nexport * from "@arbor/session-store";';
  files["packages/workspace/src/index.ts"] = [
    'import { defineTool } from "@arbor/turn-runner";',
    'import type { ImagePart } from "@arbor/providers";',
    "export { defineTool, type ImagePart };",
  ].join("\n");
  files["packages/html-export/src/index.ts"] = 'import "@arbor/session-store";';
  files["packages/session-store-postgres/src/index.ts"] =
    'export { open } from "@arbor/session-store";';
  files["apps/cli/src/main.ts"] = [
    'import { AgentSession } from "@arbor/orchestration";',
    'import { FakeProviderServer } from "@arbor/orchestration/test";',
    'import { exportHtml } from "@arbor/html-export";',
    "console.log(process.env.HOME, AgentSession, FakeProviderServer, exportHtml);",
  ].join("\n");
  files["apps/test-harness/src/index.ts"] = 'export * from "@arbor/orchestration";';
  files["apps/cli/src/tools.ts"] = 'export { workspaceTools } from "@arbor/workspace";';
  // An app's tests may reach the lower packages and their ./test kits.
  files["apps/cli/src/main.test.ts"] = [
    'import { AgentSession } from "@arbor/turn-runner";',
    'import { ScriptedModel } from "@arbor/providers/test";',
  ].join("\n");
  files["apps/cli/test/e2e/run.ts"] = 'import { defineTool } from "@arbor/turn-runner";';
  return files;
}

function manifest(name: string, fields: Record<string, unknown>): string {
  return `${JSON.stringify({ name, version: "0.0.0", ...fields }, null, 2)}\n`;
}

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Writes a tree and runs the check over it. */
function check(files: Files): { status: number | null; stdout: string; stderr: string } {
  const root = mkdtempSync(join(tmpdir(), "arbor-layers-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const result = spawnSync(process.execPath, [SCRIPT, "--root", root], { encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The clean tree with `changes` applied; expects a failure naming exactly `expected`. */
function expectViolations(changes: Files, expected: string[]): void {
  const { status, stderr } = check({ ...cleanTree(), ...changes });
  const reported = stderr.split("\n").filter((line) => /^\S+:\d+: /.test(line));
  expect(reported.map((line) => line.replace(/^(\S+:\d+): .*$/, "$1"))).toEqual(expected);
  expect(status).toBe(1);
  expect(stderr).toContain(`check-layers: ${expected.length} violation(s)`);
}

describe("scripts/check-layers.mjs", () => {
  it("passes a clean tree: comments, tsdoc examples, strings and regexes do not count", () => {
    const { status, stdout, stderr } = check(cleanTree());
    expect(stderr).toBe("");
    expect(stdout).toMatch(/^check-layers: \d+ files, no violations\n$/);
    expect(status).toBe(0);
  });

  it("fails on an upward import in every import form, naming file, line and the layers", () => {
    const file = "packages/session-store/src/upward.ts";
    expectViolations(
      {
        [file]: [
          'import { AgentSession } from "@arbor/turn-runner";',
          'import type { Advisor } from "@arbor/orchestration";',
          'export * from "@arbor/providers/test";',
          "const lazy = () => import(",
          '  "@arbor/ttsr"',
          ");",
          'const req = require("@arbor/extensions-api");',
          'import "@arbor/html-export";',
        ].join("\n"),
      },
      [1, 2, 3, 5, 7, 8].map((line) => `${file}:${line}`),
    );
    const { stderr } = check({
      ...cleanTree(),
      [file]: 'import { x } from "@arbor/turn-runner";',
    });
    expect(stderr).toContain(
      `${file}:1: @arbor/session-store imports @arbor/turn-runner, upward (it may import nothing of the workspace): "@arbor/turn-runner"`,
    );
  });

  it("fails on sideways imports within a layer and beside the stack", () => {
    expectViolations(
      {
        "packages/providers/src/rules.ts": 'import { TtsrManager } from "@arbor/ttsr";',
        "packages/ttsr/src/x.ts": '\n\nimport type { Model } from "@arbor/providers";',
        "packages/html-export/src/model.ts": 'import { Model } from "@arbor/providers";',
        "packages/session-store-postgres/src/x.ts": 'export * from "@arbor/html-export";',
      },
      [
        "packages/html-export/src/model.ts:1",
        "packages/providers/src/rules.ts:1",
        "packages/session-store-postgres/src/x.ts:1",
        "packages/ttsr/src/x.ts:3",
      ],
    );
    const { stderr } = check({
      ...cleanTree(),
      "packages/providers/src/rules.ts": 'import { TtsrManager } from "@arbor/ttsr";',
    });
    expect(stderr).toContain("@arbor/providers imports @arbor/ttsr, sideways");
  });

  it("keeps workspace beside orchestration: over turn-runner, neither importing the other", () => {
    expectViolations(
      {
        "packages/workspace/src/host.ts": 'import { AgentHost } from "@arbor/orchestration";',
        "packages/orchestration/src/tools.ts": 'import { workspaceTools } from "@arbor/workspace";',
        "packages/turn-runner/src/tools.ts": 'export * from "@arbor/workspace";',
        "packages/workspace/package.json": manifest("@arbor/workspace", {
          dependencies: {
            "@arbor/turn-runner": "workspace:*",
            "@arbor/orchestration": "workspace:*",
          },
        }),
      },
      [
        "packages/orchestration/src/tools.ts:1",
        "packages/turn-runner/src/tools.ts:1",
        "packages/workspace/package.json:6",
        "packages/workspace/src/host.ts:1",
      ],
    );
    const { stderr } = check({
      ...cleanTree(),
      "packages/workspace/src/host.ts": 'import { AgentHost } from "@arbor/orchestration";',
    });
    expect(stderr).toContain(
      "@arbor/workspace imports @arbor/orchestration, sideways (it may import @arbor/session-store, @arbor/providers, @arbor/ttsr, @arbor/extensions-api, @arbor/turn-runner)",
    );
  });

  it("fails when a package, its tests or its benchmark import an app, and when an app imports another app", () => {
    expectViolations(
      {
        "packages/turn-runner/bench/loop.ts":
          'import { FakeProviderServer } from "@arbor/test-harness";',
        "packages/providers/src/spec.test.ts": 'import { main } from "@arbor/cli";',
        "apps/cli/src/demo.ts":
          '// the demo\nimport { FakeProviderServer } from "@arbor/test-harness";',
        "apps/server/src/x.ts": 'const cli = await import("@arbor/cli");',
      },
      [
        "apps/cli/src/demo.ts:2",
        "apps/server/src/x.ts:1",
        "packages/providers/src/spec.test.ts:1",
        "packages/turn-runner/bench/loop.ts:1",
      ],
    );
    const { stderr } = check({
      ...cleanTree(),
      "apps/cli/src/demo.ts": 'import { FakeProviderServer } from "@arbor/test-harness";',
    });
    expect(stderr).toContain("an app never imports another app");
  });

  it("fails when an app's source imports below orchestration, its tests and devDependencies excepted", () => {
    expectViolations(
      {
        "apps/cli/src/agent.ts": [
          'import { AgentSession } from "@arbor/turn-runner";',
          'import type { Model } from "@arbor/providers";',
          'import { createOpenAIChatModel } from "@arbor/providers/openai";',
          'export { loadRules } from "@arbor/ttsr/loader";',
          'const ui = await import("@arbor/extensions-api");',
        ].join("\n"),
        "apps/server/src/errors.ts": 'import { AgentBusyError } from "@arbor/turn-runner";',
        "apps/server/package.json": manifest("@arbor/server", {
          dependencies: { "@arbor/turn-runner": "workspace:*" },
        }),
        // Allowed: the packages above the line, an app's test files and files outside src/.
        "apps/server/src/store.ts": [
          'import { AgentHost } from "@arbor/orchestration";',
          'import { workspaceTools } from "@arbor/workspace";',
          'import { open } from "@arbor/session-store";',
          'import { openPostgres } from "@arbor/session-store-postgres";',
          'import { exportHtml } from "@arbor/html-export";',
        ].join("\n"),
        "apps/server/src/errors.test.ts": 'import { AgentBusyError } from "@arbor/turn-runner";',
        "apps/server/test/fixtures.ts": 'import { ScriptedModel } from "@arbor/providers/test";',
      },
      [
        "apps/cli/src/agent.ts:1",
        "apps/cli/src/agent.ts:2",
        "apps/cli/src/agent.ts:3",
        "apps/cli/src/agent.ts:4",
        "apps/cli/src/agent.ts:5",
        "apps/server/package.json:5",
        "apps/server/src/errors.ts:1",
      ],
    );
    const { stderr } = check({
      ...cleanTree(),
      "apps/server/src/errors.ts": 'import { AgentBusyError } from "@arbor/turn-runner";',
    });
    expect(stderr).toContain(
      'apps/server/src/errors.ts:1: the app @arbor/server imports @arbor/turn-runner outside its tests (an app\'s source imports only @arbor/orchestration, @arbor/workspace, @arbor/session-store, @arbor/session-store-postgres, @arbor/html-export; ask @arbor/orchestration to re-export what it needs): "@arbor/turn-runner"',
    );
  });

  it("fails on a relative path into another package", () => {
    expectViolations(
      {
        "packages/session-store/src/reach.ts":
          'import { AgentSession } from "../../turn-runner/src/index.js";',
        "apps/server/src/reach.ts": 'import { x } from "../../cli/src/main.js";',
      },
      [
        "apps/server/src/reach.ts:1",
        "apps/server/src/reach.ts:1",
        "packages/session-store/src/reach.ts:1",
        "packages/session-store/src/reach.ts:1",
      ],
    );
  });

  it("fails on a package.json dependency that breaks the layers, in every dependency field", () => {
    expectViolations(
      {
        "packages/session-store/package.json": manifest("@arbor/session-store", {
          dependencies: { zod: "^4" },
          devDependencies: { "@arbor/turn-runner": "workspace:*" },
        }),
        "packages/providers/package.json": manifest("@arbor/providers", {
          peerDependencies: { "@arbor/ttsr": "workspace:*" },
          optionalDependencies: { "@arbor/test-harness": "workspace:*" },
        }),
        "apps/cli/package.json": manifest("@arbor/cli", {
          dependencies: {
            "@arbor/turn-runner": "workspace:*",
            "@arbor/test-harness": "workspace:*",
          },
        }),
      },
      [
        "apps/cli/package.json:5",
        "apps/cli/package.json:6",
        "packages/providers/package.json:5",
        "packages/providers/package.json:8",
        "packages/session-store/package.json:8",
      ],
    );
    const { stderr } = check({
      ...cleanTree(),
      "apps/cli/package.json": manifest("@arbor/cli", {
        dependencies: { "@arbor/test-harness": "workspace:*" },
      }),
    });
    expect(stderr).toContain(
      "apps/cli/package.json:5: dependencies names @arbor/test-harness: the app @arbor/cli imports the app @arbor/test-harness (an app never imports another app)",
    );
  });

  it("fails on every way of reading process.env in packages/*/src, tests and apps excepted", () => {
    const file = "packages/providers/src/env.ts";
    expectViolations(
      {
        [file]: [
          "const a = process.env.OPENAI_API_KEY;",
          'const b = process.env["KEY"];',
          'const c = process["env"];',
          "const d = globalThis.process.env;",
          "const e = process?.env?.X;",
          "const { env } = process;",
          'import { env as environment } from "node:process";',
          "const f = process . env;",
          'const g = process["argv"]; // not the environment',
        ].join("\n"),
        "packages/providers/src/env.test.ts": "const k = process.env.KEY;",
        "packages/providers/test/helper.ts": "export const k = process.env.KEY;",
        "apps/server/src/config.ts": "export const port = process.env.PORT;",
      },
      [1, 2, 3, 4, 5, 6, 7, 8].map((line) => `${file}:${line}`),
    );
  });

  it("fails on every use of console in packages/*/src, tests, benchmarks and apps excepted", () => {
    const file = "packages/turn-runner/src/log.ts";
    expectViolations(
      {
        [file]: [
          "console.log('x');",
          "console.error ('x');",
          'console["warn"]("x");',
          "globalThis.console.info('x');",
          "const log = console.debug;",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the fixture's own source text
          "export const s = `${console.log('in a substitution')}`;",
          "const quote = /'/; console.log(quote);",
        ].join("\n"),
        "packages/turn-runner/src/log.test.ts": "console.log('x');",
        "packages/turn-runner/bench/run.ts": "console.log('table');",
        "apps/cli/src/print.ts": "console.log('x');",
      },
      [1, 2, 3, 4, 5, 6, 7].map((line) => `${file}:${line}`),
    );
  });

  it("fails when shipped src/ code imports from test/ or vitest, or pulls in the ./test kit", () => {
    expectViolations(
      {
        "packages/turn-runner/test/factories.ts": "export const scripted = 1;",
        "packages/turn-runner/src/extensions/fixtures.ts":
          'import { scripted } from "../../test/factories.js";\nexport { scripted };',
        "packages/providers/src/openai/model.ts":
          'import { ScriptedModel } from "../test/index.js";',
        "packages/providers/src/helper.ts": 'import { expect } from "vitest";',
        "apps/test-harness/src/run.ts": 'import { fixture } from "../test/fixture.js";',
        // Tests may use test helpers, and the ./test kit its own files.
        "packages/turn-runner/src/extensions/fixtures.test.ts":
          'import { scripted } from "../../test/factories.js";',
        "packages/providers/src/test/scripted.ts": 'import { ScriptedModel } from "./index.js";',
      },
      [
        "apps/test-harness/src/run.ts:1",
        "packages/providers/src/helper.ts:1",
        "packages/providers/src/openai/model.ts:1",
        "packages/turn-runner/src/extensions/fixtures.ts:1",
      ],
    );
  });

  it("fails on a workspace package that has no layer", () => {
    expectViolations(
      {
        "packages/telemetry/package.json": manifest("@arbor/telemetry", {}),
        "packages/telemetry/src/index.ts": 'import { open } from "@arbor/session-store";',
      },
      ["packages/telemetry/src/index.ts:1"],
    );
  });

  it("refuses a --root that is not a folder", () => {
    const result = spawnSync(
      process.execPath,
      [SCRIPT, "--root", join(tmpdir(), "no-such-arbor")],
      {
        encoding: "utf8",
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--root must name the repository folder");
  });
});
