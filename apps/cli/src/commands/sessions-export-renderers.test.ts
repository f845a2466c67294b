import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli-run.test-util.js";

let root: string;
let env: NodeJS.ProcessEnv;
let project: string;
let home: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-export-renderers-"));
  project = join(root, "work", "project");
  home = join(root, "home");
  await mkdir(join(home, ".arbor", "extensions"), { recursive: true });
  await mkdir(join(project, ".arbor", "extensions"), { recursive: true });
  env = { HOME: home, ARBOR_HOME: join(root, "arbor") };
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const time = "2025-01-01T00:00:00.000Z";

/** A session of the project holding custom messages of several types. */
async function writeSession(): Promise<string> {
  const dir = join(root, "arbor", "sessions", "--project--");
  await mkdir(dir, { recursive: true });
  const custom = (id: string, parentId: string | null, customType: string, display = true) => ({
    type: "custom_message",
    id,
    parentId,
    timestamp: time,
    customType,
    content: `content of ${id}`,
    display,
    details: { todos: ["write tests", "ship"] },
  });
  const lines = [
    { type: "session", version: 3, id: "render-me", timestamp: time, cwd: project },
    custom("c1", null, "todo-list"),
    custom("c2", "c1", "notes"),
    custom("c3", "c2", "todo-list", false),
    custom("c4", "c3", "project-card"),
    custom("c5", "c4", "broken"),
  ];
  const file = join(dir, "render-me.jsonl");
  await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return file;
}

const HOME_EXTENSION = `
export default function (arbor) {
  arbor.registerMessageRenderer("todo-list", (message, options) => {
    const todos = message.details.todos;
    if (options.target === "html") return { html: "<ul>" + todos.map((t) => "<li>" + t + "</li>").join("") + "</ul>" };
    return todos.map((t) => "[ ] " + t);
  });
  arbor.registerMessageRenderer("notes", () => ["note one", "<b>note two</b>"]);
  arbor.registerMessageRenderer("broken", () => { throw new Error("renderer bug"); });
}
`;

const PROJECT_EXTENSION = `
export default function (arbor) {
  arbor.registerMessageRenderer("project-card", () => ({ html: "<p>project card</p>" }));
}
`;

/** The page data embedded in an exported page. */
async function pageData(path: string): Promise<{ rendered: Record<string, unknown> }> {
  const html = await readFile(path, "utf8");
  const json = /<script type="application\/json" id="arbor-session">([\s\S]*?)<\/script>/.exec(
    html,
  )?.[1];
  return JSON.parse(json ?? "{}");
}

describe("arbor sessions export with extension renderers", () => {
  it("uses the renderers of the home's extensions, and the project's only when it is trusted", async () => {
    await writeFile(join(home, ".arbor", "extensions", "todo.mjs"), HOME_EXTENSION);
    await writeFile(join(project, ".arbor", "extensions", "card.mjs"), PROJECT_EXTENSION);
    const file = await writeSession();
    const untrusted = await runCli(["sessions", "export", file, "untrusted.html"], {
      cwd: project,
      env,
    });
    expect(untrusted.code).toBe(0);
    const data = await pageData(join(project, "untrusted.html"));
    expect(data.rendered).toEqual({
      c1: { html: "<ul><li>write tests</li><li>ship</li></ul>", by: "todo" },
      c2: { text: "note one\n<b>note two</b>", by: "todo" },
    });
    // display:false (c3) is never rendered; the untrusted project's card (c4) and the
    // throwing renderer (c5) keep the default view.
    expect(untrusted.stderr).toContain("renderer bug");
    const trusted = await runCli(["sessions", "export", file, "trusted.html", "--trust-project"], {
      cwd: project,
      env,
    });
    expect(trusted.code).toBe(0);
    expect((await pageData(join(project, "trusted.html"))).rendered).toMatchObject({
      c4: { html: "<p>project card</p>", by: "card" },
    });
  });

  it("exports with the default view when an extension does not load", async () => {
    await writeFile(join(home, ".arbor", "extensions", "bad.mjs"), "export default 42;\n");
    const file = await writeSession();
    const result = await runCli(["sessions", "export", file, "out.html"], { cwd: project, env });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("extension bad");
    expect((await pageData(join(project, "out.html"))).rendered).toEqual({});
  });

  it("arbor export --format html writes the same page as arbor sessions export", async () => {
    await writeFile(join(home, ".arbor", "extensions", "todo.mjs"), HOME_EXTENSION);
    const file = await writeSession();
    const viaExport = await runCli(["export", file, "export.html", "--format", "html"], {
      cwd: project,
      env,
    });
    expect(viaExport.code).toBe(0);
    const viaSessions = await runCli(["sessions", "export", file, "sessions.html"], {
      cwd: project,
      env,
    });
    expect(viaSessions.code).toBe(0);
    const rendered = (await pageData(join(project, "export.html"))).rendered;
    expect(rendered).toEqual({
      c1: { html: "<ul><li>write tests</li><li>ship</li></ul>", by: "todo" },
      c2: { text: "note one\n<b>note two</b>", by: "todo" },
    });
    // The same page but for the moment it was made.
    const page = async (name: string) =>
      (await readFile(join(project, name), "utf8")).replace(/"generatedAt":"[^"]*"/, "");
    expect(await page("export.html")).toBe(await page("sessions.html"));
  });
});
