/*
 * The example extensions of the repository (examples/extensions/), loaded from their
 * TypeScript source by ExtensionRunner without a build step, against a real AgentSession.
 */
import { fileURLToPath } from "node:url";
import { type ExtensionErrorEvent, ExtensionRunner } from "@arbor/extensions-api";
import { isEntryOfType } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, memorySession, messageOf, scripted, shape } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import { defineTool } from "../agent-tool.js";

const examplesDir = fileURLToPath(new URL("../../../../examples/extensions/", import.meta.url));

async function withExample(file: string, responses: Parameters<typeof scripted>[1]) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: examplesDir,
    paths: [file],
    onError: (error) => errors.push(error),
  });
  const loaded = await runner.loadAll();
  const session = await memorySession();
  const model = scripted("alpha", responses);
  const ran: string[] = [];
  const bash = defineTool({
    name: "bash",
    description: "Runs a shell command",
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
  });
  const agent = new AgentSession({
    targets: [{ model }],
    session,
    tools: [bash],
    extensions: runner,
  });
  await agent.extensions?.start("startup");
  return { agent, session, model, runner, loaded, errors, ran };
}

describe("example: bookmark", () => {
  it("/bookmark [name] labels the current point; twice labels the same message, not the label", async () => {
    const { agent, session, loaded, errors } = await withExample("bookmark.ts", ["Hello", "Again"]);
    expect(loaded.map(({ name, commands }) => ({ name, commands }))).toEqual([
      { name: "bookmark", commands: ["bookmark"] },
    ]);
    expect(agent.extensions?.getCommands()).toMatchObject([
      { name: "bookmark", extensionName: "bookmark" },
    ]);

    await drain(agent.prompt("Hi"));
    expect(await agent.extensions?.runCommand("bookmark", "  before refactor ")).toEqual({
      status: "done",
    });
    expect(session.getLabel("e2")).toBe("before refactor");

    await drain(agent.prompt("Once more"));
    const answerId = session
      .getBranch()
      .findLast(
        (entry) => isEntryOfType(entry, "message") && entry.message.role === "assistant",
      )?.id;
    await agent.extensions?.runCommand("/bookmark", "");
    await agent.extensions?.runCommand("bookmark", "after");
    expect(session.getLabel(answerId ?? "")).toBe("after");
    expect(session.getLabel("e2")).toBe("before refactor");
    expect(errors).toEqual([]);
  });

  it("on an empty session it fails with a reason and reports it", async () => {
    const { agent, errors } = await withExample("bookmark.ts", []);
    const outcome = await agent.extensions?.runCommand("bookmark", "x");
    expect(outcome).toMatchObject({ status: "failed" });
    expect(outcome?.status === "failed" && outcome.error).toContain("nothing to bookmark yet");
    expect(errors.map(({ extensionName, event, kind }) => [extensionName, event, kind])).toEqual([
      ["bookmark", "command", "threw"],
    ]);
  });
});

describe("example: dangerous-tool-guard", () => {
  it("blocks rm -rf with a reason the model reads, and lets harmless commands run", async () => {
    const { agent, session, model, ran, errors } = await withExample("dangerous-tool-guard.ts", [
      {
        blocks: [
          {
            type: "toolCall",
            id: "c1",
            name: "bash",
            arguments: { command: "rm -rf / --no-preserve-root" },
          },
          { type: "toolCall", id: "c2", name: "bash", arguments: { command: "ls -la" } },
          {
            type: "toolCall",
            id: "c3",
            name: "bash",
            arguments: { command: "git push -f origin main" },
          },
        ],
      },
      "I will ask you to do that.",
    ]);

    const { result } = await drain(agent.prompt("Clean up the disk"));

    expect(result.success).toBe(true);
    expect(ran).toEqual(["ls -la"]);
    const results = Object.fromEntries(
      ["e3", "e4", "e5"].map((id) => {
        const message = messageOf(session, id);
        return [message.toolCallId, message];
      }),
    );
    expect(results.c1).toMatchObject({ isError: true });
    expect(JSON.stringify(results.c1?.content)).toContain("a recursive forced delete");
    expect(results.c2).toMatchObject({ isError: false, content: [{ text: "ran ls -la" }] });
    expect(JSON.stringify(results.c3?.content)).toContain("a force push");
    const told = model.requests[1]?.messages.filter((m) => m.role === "toolResult");
    expect(told?.filter((m) => m.role === "toolResult" && m.isError)).toHaveLength(2);
    expect(errors).toEqual([]);
  });

  it("lets rm -r without force run, leaves other tools alone, and errs on the side of blocking", async () => {
    const { agent, session, ran } = await withExample("dangerous-tool-guard.ts", [
      {
        blocks: [
          { type: "toolCall", id: "c1", name: "bash", arguments: { command: "rm -r build" } },
          {
            type: "toolCall",
            id: "c2",
            name: "bash",
            arguments: { command: "echo 'rm -rf' is bad" },
          },
          { type: "toolCall", id: "c3", name: "notes", arguments: { command: "rm -rf /" } },
        ],
      },
      "ok",
    ]);
    await drain(agent.prompt("go"));

    // Quoted text is not parsed, so the echo is blocked too.
    expect(ran).toEqual(["rm -r build"]);
    const notes = ["e3", "e4", "e5"]
      .map((id) => messageOf(session, id))
      .find((message) => message.toolCallId === "c3");
    expect(JSON.stringify(notes?.content)).toContain('Unknown tool \\"notes\\"');
  });
});

describe("example: custom-compaction", () => {
  it("supplies the summary itself; the model is never asked and the next prompt sees it", async () => {
    const long = (word: string) => `${word} `.repeat(120);
    const { agent, session, model, errors } = await withExample("custom-compaction.ts", [
      long("alpha"),
      long("beta"),
      long("gamma"),
      "after compaction",
    ]);
    for (const prompt of ["Fix the parser", "Now the lexer", "And the tests"])
      await drain(agent.prompt(`${prompt} ${long("x")}`));

    const outcome = await agent.extensions?.compact({
      model,
      settings: { keepRecentTokens: 200 },
      customInstructions: "keep file names",
    });

    expect(outcome).toMatchObject({ status: "compacted", fromHook: true });
    expect(model.requests).toHaveLength(3);
    const compaction = session.getEntries().find((entry) => isEntryOfType(entry, "compaction"));
    const summary = (compaction as { summary: string }).summary;
    expect(summary).toContain("Focus: keep file names");
    expect(summary).toContain("- The user asked: Fix the parser x x");
    expect(summary).toMatch(/messages and 0 tool results summarized by custom-compaction\)$/);
    expect(compaction).toMatchObject({
      fromHook: true,
      details: { summarizedBy: "custom-compaction" },
    });

    await drain(agent.prompt("Where were we?"));
    const first = model.requests[3]?.messages[0];
    expect(first?.role).toBe("user");
    expect(JSON.stringify(first?.content)).toContain("Earlier in this session");
    expect(shape(session).at(-1)?.[1]).toBe("message:assistant");
    expect(errors).toEqual([]);
  });
});
