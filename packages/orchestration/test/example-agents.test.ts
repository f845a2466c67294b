/*
 * The repository's example agent teams (examples/agents/), loaded from their files and run
 * through runAgent on one scripted model that plays every call in order.
 */
import { fileURLToPath } from "node:url";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { CHILD_SESSION_CUSTOM_TYPE, loadAgentTree, runAgent } from "../src/index.js";
import { customData } from "./orchestration-fixtures.js";

const examples = fileURLToPath(new URL("../../../examples/agents/", import.meta.url));

const call = (name: string, args: Record<string, unknown>, id = `c_${name}`) => ({
  blocks: [{ type: "toolCall" as const, id, name, arguments: args }],
});

async function runExample(file: string, prompt: string, responses: ScriptedResponseInput[]) {
  const tree = await loadAgentTree(`${examples}${file}`);
  const model = new ScriptedModel({ responses });
  const store = new MemorySessionStore();
  const result = await runAgent(tree, prompt, {
    store,
    models: () => model,
    limits: { concurrency: 1 },
  }).result;
  return { result, model, store };
}

describe("example agent teams", () => {
  it("support desk: the router answers a greeting itself, then the tone check rewrites it", async () => {
    const { result } = await runExample("support-desk/front-desk.md", "Hi!", [
      "Hello! How can we help?",
      "Hi there! How can we help you today?",
    ]);
    expect(result).toMatchObject({ success: true, finalAgent: "front-desk:tone-check" });
    expect(result.children.map((child) => `${child.agentPath} ${child.outcome}`)).toEqual([
      "front-desk:tone-check succeeded",
    ]);
  });

  it("support desk: an error goes to tech, which asks the log reader; the tone check runs last", async () => {
    const { result, store } = await runExample(
      "support-desk/front-desk.md",
      "I get ECONNRESET on upload",
      [
        call("router__handoff-to", { agent: "tech", message: "upload fails with ECONNRESET" }),
        call("agent__log-reader", { error: "ECONNRESET" }),
        "The server closed the connection, most likely a proxy timeout.",
        "1. Retry the upload. 2. Check your proxy timeout.",
        "Sorry about that! 1. Retry the upload. 2. Check your proxy timeout.",
      ],
    );
    expect(result).toMatchObject({
      success: true,
      finalAgent: "front-desk:tone-check",
      finalReport: { value: "Sorry about that! 1. Retry the upload. 2. Check your proxy timeout." },
    });
    expect(
      result.children.map((child) => `${child.agentPath} ${child.role} ${child.outcome}`),
    ).toEqual([
      "front-desk:tech destination succeeded",
      "front-desk:tech:log-reader subagent succeeded",
      "front-desk:tone-check handoff succeeded",
    ]);
    const root = await store.open(result.session.id);
    expect(customData(root, CHILD_SESSION_CUSTOM_TYPE)).toMatchObject([
      { agent: "tech", outcome: "running" },
      { agent: "tech", outcome: "succeeded" },
      { agent: "tone-check", outcome: "running" },
      { agent: "tone-check", outcome: "succeeded" },
    ]);
  });

  it("research: the skeptic advises, the lead calls two researchers, each calls the summarizer", async () => {
    const { result, model } = await runExample("research/lead.md", "Is moss a good lawn?", [
      "Assumes a shady garden; assumes low foot traffic.",
      {
        blocks: [
          {
            type: "toolCall",
            id: "t1",
            name: "agent__researcher",
            arguments: { prompt: "moss growth" },
          },
          {
            type: "toolCall",
            id: "t2",
            name: "agent__researcher",
            arguments: { prompt: "moss wear" },
          },
        ],
      },
      call("agent__summarizer", { prompt: "notes on growth" }),
      "- grows in shade",
      "Growth: shade.",
      call("agent__summarizer", { prompt: "notes on wear" }),
      "- wears fast",
      "Wear: fast.",
      "Moss works in shade with little traffic.",
    ]);
    expect(result).toMatchObject({ success: true, finalAgent: "lead" });
    expect(result.children.map((child) => child.agentPath)).toEqual([
      "lead:skeptic",
      "lead:researcher",
      "lead:researcher:summarizer",
      "lead:researcher",
      "lead:researcher:summarizer",
    ]);
    expect(model.requests[1]?.tools?.map((tool) => tool.name)).toEqual(["agent__researcher"]);
  });
});
