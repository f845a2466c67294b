import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discoverExtensions } from "./discovery.js";
import type { ExtensionErrorEvent } from "./events.js";
import { ExtensionRunner } from "./runner.js";

let root: string;
let project: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-ext-"));
  project = join(root, "project");
  home = join(root, "home");
  await mkdir(project);
  await mkdir(home);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** An extension that records its name into a `turn_start` trace. */
const tracer = (name: string) => `export default (arbor) => {
  arbor.on("turn_start", (event) => { globalThis.__arborTrace?.push(${JSON.stringify(name)}); });
};\n`;

async function loadWith(options: Partial<ConstructorParameters<typeof ExtensionRunner>[0]> = {}) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: project,
    homeDir: home,
    onError: (e) => errors.push(e),
    ...options,
  });
  const loaded = await runner.loadAll();
  return { runner, loaded, errors };
}

describe("loading extensions", () => {
  it("loads .js and .ts files from the project and the home, without a build step", async () => {
    await put(join(project, ".arbor/extensions/b-plain.js"), tracer("project js"));
    await put(
      join(project, ".arbor/extensions/a-typed.ts"),
      `import type { ExtensionAPI } from "@arbor/extensions-api";
import { z } from "zod";
interface Options { readonly greeting: string }
const options: Options = { greeting: "hello" };
export default function (arbor: ExtensionAPI): void {
  arbor.registerTool({
    name: "greet",
    description: "Greets",
    parameters: z.object({ who: z.string().describe("whom to greet") }),
    execute: (args) => ({ content: \`\${options.greeting} \${args.who}\` }),
  });
}
`,
    );
    await put(join(home, ".arbor/extensions/global.mjs"), tracer("home"));
    await put(join(home, ".arbor/extensions/types.d.ts"), "export {};\n");
    await put(join(home, ".arbor/extensions/notes.md"), "not an extension\n");
    const { runner, loaded, errors } = await loadWith();
    expect(errors).toEqual([]);
    expect(loaded.map((e) => [e.name, e.origin])).toEqual([
      ["a-typed", "project"],
      ["b-plain", "project"],
      ["global", "home"],
    ]);
    expect(await runner.executeTool("greet", { who: "you" }, { toolCallId: "t" })).toMatchObject({
      content: [{ type: "text", text: "hello you" }],
    });
    expect(runner.getTools()[0]?.jsonSchema).toMatchObject({
      properties: { who: { type: "string", description: "whom to greet" } },
    });
    const trace: string[] = [];
    (globalThis as { __arborTrace?: string[] }).__arborTrace = trace;
    await runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    delete (globalThis as { __arborTrace?: string[] }).__arborTrace;
    expect(trace).toEqual(["project js", "home"]);
  });

  it("loads CommonJS modules and directories with an index or a package.json field", async () => {
    await put(join(project, ".arbor/extensions/cjs.cjs"), "module.exports = (arbor) => {};\n");
    await put(join(project, ".arbor/extensions/with-index/index.ts"), "export default () => {};\n");
    await put(
      join(project, ".arbor/extensions/multi/package.json"),
      JSON.stringify({ name: "multi", arbor: { extensions: ["./one.js", "./two.ts"] } }),
    );
    await put(join(project, ".arbor/extensions/multi/one.js"), "export default () => {};\n");
    await put(join(project, ".arbor/extensions/multi/two.ts"), "export default () => {};\n");
    await put(join(project, ".arbor/extensions/helpers/util.js"), "export const x = 1;\n");
    const { loaded, errors } = await loadWith({ homeDir: undefined });
    expect(errors).toEqual([]);
    expect(loaded.map((e) => e.name)).toEqual(["cjs", "multi/one", "multi/two", "with-index"]);
  });

  it("loads npm packages that declare arbor.extensions, resolved from the project", async () => {
    const pkg = join(project, "node_modules/@acme/arbor-guard");
    await put(
      join(pkg, "package.json"),
      JSON.stringify({ name: "@acme/arbor-guard", arbor: { extensions: ["./dist/guard.js"] } }),
    );
    await put(
      join(pkg, "dist/guard.js"),
      `export default (arbor) => arbor.on("tool_call", (e) => e.toolName === "rm" ? { block: true, reason: "guarded" } : undefined);\n`,
    );
    await put(
      join(project, "node_modules/plain-lib/package.json"),
      JSON.stringify({ name: "plain-lib" }),
    );
    const { runner, loaded, errors } = await loadWith({
      packages: ["@acme/arbor-guard", "plain-lib", "absent"],
    });
    expect(loaded.map((e) => [e.name, e.origin])).toEqual([["@acme/arbor-guard", "package"]]);
    expect(errors.map((e) => [e.extensionName, e.kind, e.error])).toEqual([
      ["plain-lib", "load_failed", expect.stringContaining("no `arbor.extensions` field")],
      ["absent", "load_failed", expect.stringContaining("not installed")],
    ]);
    expect(
      await runner.emit({ type: "tool_call", toolCallId: "1", toolName: "rm", input: {} }),
    ).toMatchObject({
      blocked: true,
      reason: "guarded",
    });
  });

  it("finds a package installed in a parent directory's node_modules", async () => {
    await put(
      join(root, "node_modules/up-ext/package.json"),
      JSON.stringify({ name: "up-ext", arbor: { extensions: ["index.js"] } }),
    );
    await put(join(root, "node_modules/up-ext/index.js"), "export default () => {};\n");
    const { loaded } = await loadWith({ packages: ["up-ext"] });
    expect(loaded.map((e) => e.name)).toEqual(["up-ext"]);
  });

  it("reports bad extension files and still loads the good ones", async () => {
    const dir = join(project, ".arbor/extensions");
    await put(join(dir, "1-syntax.ts"), "export default (arbor => {\n");
    await put(join(dir, "2-no-default.js"), "export const setup = () => {};\n");
    await put(join(dir, "3-not-function.js"), "export default { on() {} };\n");
    await put(
      join(dir, "4-throws.ts"),
      'export default () => { throw new Error("factory broke"); };\n',
    );
    await put(join(dir, "5-top-level-throw.js"), 'throw new Error("module broke");\n');
    await put(join(dir, "6-good.js"), "export default () => {};\n");
    await put(join(dir, "bad-pkg/package.json"), "{ not json");
    await put(
      join(dir, "bad-field/package.json"),
      JSON.stringify({ name: "bad-field", arbor: { extensions: "index.js" } }),
    );
    await put(
      join(dir, "missing-entry/package.json"),
      JSON.stringify({
        name: "missing-entry",
        arbor: { extensions: ["./gone.js", "../escape.js"] },
      }),
    );
    const { loaded, errors } = await loadWith();
    expect(loaded.map((e) => e.name)).toEqual(["6-good"]);
    const byName = Object.fromEntries(errors.map((e) => [e.extensionName, e]));
    expect(Object.keys(byName).sort()).toEqual([
      "1-syntax",
      "2-no-default",
      "3-not-function",
      "4-throws",
      "5-top-level-throw",
      "bad-field",
      "bad-pkg",
      "missing-entry/escape",
      "missing-entry/gone",
    ]);
    expect(errors.every((e) => e.event === "load" && e.kind === "load_failed")).toBe(true);
    expect(byName["2-no-default"]?.error).toContain("no default export");
    expect(byName["3-not-function"]?.error).toContain("is a object, not a function");
    expect(byName["4-throws"]?.error).toContain("factory broke");
    expect(byName["5-top-level-throw"]?.error).toContain("module broke");
    expect(byName["missing-entry/escape"]?.error).toContain("outside its package");
  });

  it("loads explicit paths first and each module once", async () => {
    const file = await put(
      join(project, ".arbor/extensions/shared.js"),
      "export default () => {};\n",
    );
    await put(join(root, "elsewhere/ext.ts"), "export default () => {};\n");
    await mkdir(join(home, ".arbor"), { recursive: true });
    await symlink(join(project, ".arbor/extensions"), join(home, ".arbor/extensions"));
    const { runner, loaded, errors } = await loadWith({
      paths: ["../elsewhere/ext.ts", file, "missing.ts"],
    });
    expect(loaded.map((e) => [e.name, e.origin])).toEqual([
      ["ext", "path"],
      ["shared", "path"],
    ]);
    expect(errors.map((e) => [e.extensionName, e.error])).toEqual([
      ["missing.ts", "no such file or directory"],
    ]);
    expect(await runner.loadAll()).toEqual([]);
    expect(runner.extensions).toHaveLength(2);
  });

  it("orders sources: explicit paths, project, packages, home", async () => {
    await put(join(home, ".arbor/extensions/from-home.js"), "export default () => {};\n");
    await put(join(project, ".arbor/extensions/from-project.js"), "export default () => {};\n");
    await put(
      join(project, "node_modules/from-package/package.json"),
      JSON.stringify({ name: "from-package", arbor: { extensions: ["./x.js"] } }),
    );
    await put(join(project, "node_modules/from-package/x.js"), "export default () => {};\n");
    await put(join(project, "tools/from-path.ts"), "export default () => {};\n");
    const { sources, problems } = await discoverExtensions({
      cwd: project,
      homeDir: home,
      packages: ["from-package"],
      paths: ["tools/from-path.ts"],
    });
    expect(problems).toEqual([]);
    expect(sources.map((s) => [s.name, s.origin])).toEqual([
      ["from-path", "path"],
      ["from-project", "project"],
      ["from-package", "package"],
      ["from-home", "home"],
    ]);
  });

  it("finds nothing, quietly, when there are no extension directories", async () => {
    expect(await discoverExtensions({ cwd: project, homeDir: home })).toEqual({
      sources: [],
      problems: [],
    });
  });

  it("reads a fresh copy of a module on each load", async () => {
    const path = await put(join(project, "ext.js"), tracer("v1"));
    const first = await loadWith({ paths: [path], homeDir: undefined });
    await put(path, tracer("v2"));
    const second = await loadWith({ paths: [path], homeDir: undefined });
    const trace: string[] = [];
    (globalThis as { __arborTrace?: string[] }).__arborTrace = trace;
    await first.runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    await second.runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 0 });
    delete (globalThis as { __arborTrace?: string[] }).__arborTrace;
    expect(trace).toEqual(["v1", "v2"]);
  });
});
