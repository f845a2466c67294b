import { afterEach, describe, expect, it } from "vitest";
import {
  agentFile,
  agentFolder,
  customData,
  scriptedModels,
} from "../../test/orchestration-fixtures.js";
import { ANCESTRY_CUSTOM_TYPE, CHILD_SESSION_CUSTOM_TYPE } from "./child-records.js";
import { loadAgentTree } from "./load-agent-tree.js";
import { runAgent } from "./run-agent.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("runAgent", () => {
  it("runs advisors, then the main agent with their answers as tagged blocks", async () => {
    const folder = await agentFolder({
      "main.md": agentFile({ models: "[scripted/main]", advisors: "[./critic.md]" }),
      "critic.md": agentFile({ models: "[scripted/critic]" }),
    });
    cleanups.push(folder.remove);
    const { models, model, store } = scriptedModels({ main: ["Final."], critic: ["Be careful."] });
    const tree = await loadAgentTree(folder.path("main.md"));
    const run = runAgent(tree, "Do it", { store, models, generateNonce: () => "n0nce" });
    const types: string[] = [];
    for await (const event of run.events) types.push(event.type);
    const result = await run.result;
    expect(result.success).toBe(true);
    expect(result.finalAgent).toBe("main");
    expect(result.children.map((c) => [c.agentPath, c.outcome])).toEqual([
      ["main:critic", "succeeded"],
    ]);
    expect(types.slice(0, 2)).toEqual(["child_start", "child_end"]);
    expect(types.at(-1)).toBe("orchestration_end");
    const sent = model("main").requests[0]?.messages.at(-1)?.content;
    expect(JSON.stringify(sent)).toContain('<advisory-n0nce agent=\\"critic\\">');
    const root = await store.open(result.session.id);
    expect(customData(root, CHILD_SESSION_CUSTOM_TYPE)).toMatchObject([
      { agent: "critic", outcome: "running" },
      { agent: "critic", outcome: "succeeded" },
    ]);
    const child = await store.open(result.children[0]?.sessionId ?? "");
    expect(customData(child, ANCESTRY_CUSTOM_TYPE)).toMatchObject([
      { originId: root.id, parentId: root.id, agentPath: "main:critic", role: "advisor" },
    ]);
    expect(child.getHeader().parentSession).toBe(root.location);
    expect(result.usage.input).toBe(20);
  });
});
