import { afterEach, describe, expect, it } from "vitest";
import { agentFile, agentFolder } from "../../test/orchestration-fixtures.js";
import { defineAgent } from "../definition/index.js";
import { AgentDefinitionError } from "../errors/index.js";
import { loadAgentTree, resolveAgentTree } from "./load-agent-tree.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(files: Record<string, string>) {
  const made = await agentFolder(files);
  cleanups.push(made.remove);
  return made;
}

async function loadError(path: string): Promise<AgentDefinitionError> {
  const error = await loadAgentTree(path).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AgentDefinitionError.isInstance(error))
    throw new Error(`expected an AgentDefinitionError, got ${String(error)}`);
  return error;
}

const M = "[scripted/m]";

describe("loadAgentTree", () => {
  it("loads every agent a file names, relative to the naming file's folder, one node per file", async () => {
    const dir = await folder({
      "main.md": agentFile({
        models: M,
        advisors: "[team/critic.md]",
        router: "{ destinations: [team/billing.md] }",
        handoff: "team/critic.md",
        agents: "[team/helper.md]",
      }),
      "team/critic.md": agentFile({ models: M }),
      "team/billing.md": agentFile({ models: M, agents: "[helper.md]" }),
      "team/helper.md": agentFile({ models: M }),
    });
    const tree = await loadAgentTree(dir.path("main.md"));
    expect(tree.advisors.map((node) => node.file)).toEqual([dir.path("team/critic.md")]);
    expect(tree.destinations[0]?.definition.name).toBe("billing");
    expect(tree.handoff).toBe(tree.advisors[0]);
    expect(tree.agents[0]).toBe(tree.destinations[0]?.agents[0]);
    expect(tree.definition.agents).toEqual([dir.path("team/helper.md")]);
  });

  it.each([
    ["advisors", "advisors: [ghost.md]", "advisors[0]"],
    [
      "router destinations",
      "router: { destinations: [real.md, ghost.md] }",
      "router.destinations[1]",
    ],
    ["handoff", "handoff: ghost.md", "handoff"],
    ["agents", "agents: [real.md, ghost.md]", "agents[1]"],
  ])(
    "a missing file named in %s is refused naming the file, the key and the path",
    async (_kind, line, key) => {
      const [name, value] = line.split(": ") as [string, string];
      const dir = await folder({
        "main.md": agentFile({ models: M, [name]: line.slice(name.length + 2) || value }),
        "real.md": agentFile({ models: M }),
      });
      const error = await loadError(dir.path("main.md"));
      expect(error.file).toBe(dir.path("main.md"));
      expect(error.key).toBe(key);
      expect(error.reason).toBe(`${dir.path("ghost.md")}: the file does not exist`);
      expect(error.message).toContain(`main.md: ${key}: `);
    },
  );

  it("a named path that is a folder is refused as not a regular file", async () => {
    const dir = await folder({
      "main.md": agentFile({ models: M, agents: "[sub]" }),
      "sub/x.md": "x",
    });
    const error = await loadError(dir.path("main.md"));
    expect(error.key).toBe("agents[0]");
    expect(error.reason).toContain("not a regular file (a directory)");
  });

  it.each([
    [
      "an agent that is its own sub-agent",
      { "main.md": agentFile({ models: M, agents: "[main.md]" }) },
      "main.md",
      "agents[0]",
    ],
    [
      "a loop of two through handoff and advisors",
      {
        "main.md": agentFile({ models: M, handoff: "b.md" }),
        "b.md": agentFile({ models: M, advisors: "[main.md]" }),
      },
      "b.md",
      "advisors[0]",
    ],
    [
      "a loop of three through router destinations and agents",
      {
        "main.md": agentFile({ models: M, router: "{ destinations: [b.md] }" }),
        "b.md": agentFile({ models: M, agents: "[c.md]" }),
        "c.md": agentFile({ models: M, router: "{ destinations: [b.md] }" }),
      },
      "c.md",
      "router.destinations[0]",
    ],
    [
      "a loop through a file named by a path with ./ and ../",
      {
        "main.md": agentFile({ models: M, agents: "[./sub/../main.md]" }),
      },
      "main.md",
      "agents[0]",
    ],
  ])("a cycle is refused at load: %s", async (_name, files, file, key) => {
    const dir = await folder(files);
    const error = await loadError(dir.path("main.md"));
    expect(error.file).toBe(dir.path(file));
    expect(error.key).toBe(key);
    expect(error.reason).toMatch(/^cycle: .+ → .+/);
  });

  it("an agent named twice on different branches (no cycle) loads", async () => {
    const dir = await folder({
      "main.md": agentFile({ models: M, advisors: "[a.md, b.md]" }),
      "a.md": agentFile({ models: M, agents: "[shared.md]" }),
      "b.md": agentFile({ models: M, handoff: "shared.md" }),
      "shared.md": agentFile({ models: M }),
    });
    const tree = await loadAgentTree(dir.path("main.md"));
    expect(tree.advisors[0]?.agents[0]).toBe(tree.advisors[1]?.handoff);
  });

  it.each([
    [
      {
        "a/x.md": agentFile({ models: M, name: "helper" }),
        "b/y.md": agentFile({ models: M, name: "helper" }),
      },
      "[a/x.md, b/y.md]",
    ],
    [
      { "a/helper.md": agentFile({ models: M }), "b/helper.md": agentFile({ models: M }) },
      "[a/helper.md, b/helper.md]",
    ],
  ])("two sub-agents with one tool name are refused at load", async (files, agents) => {
    const dir = await folder({ "main.md": agentFile({ models: M, agents }), ...files });
    const error = await loadError(dir.path("main.md"));
    expect(error.key).toBe("agents[1]");
    expect(error.reason).toContain("duplicate tool name agent__helper");
  });

  it("a sub-agent whose tool name clashes with a tool the definition names is refused", async () => {
    const dir = await folder({
      "main.md": agentFile({ models: M, agents: "[helper.md]", tools: "[agent__helper]" }),
      "helper.md": agentFile({ models: M }),
    });
    const error = await loadError(dir.path("main.md"));
    expect(error.key).toBe("tools");
  });

  it.each([
    ["advisor", "[x.md]"],
    ["subagents", "[x.md]"],
    ["handOff", "x.md"],
  ])("a misspelt orchestration key (%s) is an unknown key", async (key, value) => {
    const dir = await folder({
      "main.md": agentFile({ models: M, [key]: value }),
      "x.md": agentFile({ models: M }),
    });
    const error = await loadError(dir.path("main.md"));
    expect(error.key).toBe(key);
    expect(error.reason).toContain("unknown key");
  });

  it.each([
    ["router: { destinations: [] }", "router.destinations"],
    ["router: { destination: [x.md] }", "router.destination"],
    ["agents: [x.md, x.md]", "agents"],
    ["handoff: ''", "handoff"],
    ["timeoutMs: 0", "timeoutMs"],
  ])("an invalid orchestration value (%s) names its key", async (line, key) => {
    const dir = await folder({
      "main.md": `---\nmodels: ${M}\n${line}\n---\nBody.\n`,
      "x.md": agentFile({ models: M }),
    });
    const error = await loadError(dir.path("main.md"));
    expect(error.problems.map((problem) => problem.key)).toContain(key);
  });

  it.each([
    ["{ type: string }", "needs type"],
    ["{ properties: { a: { type: string } } }", "needs type"],
    ["{ type: object, properties: { a: { type: nonsense } } }", "not a usable JSON schema"],
    ["{ type: object, required: 5 }", "not a usable JSON schema"],
  ])(
    "an inputSchema that is not a JSON schema of an object (%s) is refused at load",
    async (schema, reason) => {
      const dir = await folder({
        "main.md": agentFile({ models: M, agents: "[helper.md]" }),
        "helper.md": agentFile({ models: M, inputSchema: schema }),
      });
      const error = await loadError(dir.path("main.md"));
      expect(error.file).toBe(dir.path("helper.md"));
      expect(error.key).toBe("inputSchema");
      expect(error.reason).toContain(reason);
    },
  );

  it("a definition given in code resolves the files it names", async () => {
    const dir = await folder({ "critic.md": agentFile({ models: M }) });
    const tree = await resolveAgentTree(
      defineAgent({ name: "main", models: ["scripted/m"], advisors: [dir.path("critic.md")] }),
    );
    expect(tree.file).toBe("<inline>");
    expect(tree.advisors[0]?.definition.name).toBe("critic");
  });
});
