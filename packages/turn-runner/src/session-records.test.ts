import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionRunner } from "@arbor/extensions-api";
import { openSessionFile, type Session } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drain, label, scripted } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";
import { AgentBusyError, InvalidAgentOptionsError } from "./contracts/index.js";
import {
  CONTEXT_SWITCH_CUSTOM_TYPE,
  recordedSystemPrompt,
  recordedWorkingDirectory,
  SYSTEM_PROMPT_CUSTOM_TYPE,
} from "./session-records.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-records-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const file = () => join(dir, "chat.jsonl");
const open = () => openSessionFile(file(), { create: true, cwd: "/srv/project" });
const agentOn = (session: Session, systemPrompt?: string, answers = ["ok", "ok", "ok"]) =>
  new AgentSession({
    targets: [{ model: scripted("alpha", answers) }],
    session,
    ...(systemPrompt === undefined ? {} : { systemPrompt }),
  });
/** The `custom` entries of one type in the file as written, in order. */
const linesOfType = async (customType: string) =>
  (await readFile(file(), "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.customType === customType);

describe("the system prompt a run used is recorded once per change", () => {
  it("stores it before the first run's message, not again while it stays, again when it changes", async () => {
    let session = await open();
    await drain(agentOn(session, "Be brief.").prompt("one"));
    await drain(agentOn(session, "Be brief.").prompt("two"));
    await session.close();

    // A resumed session with the same prompt adds nothing; a changed one is recorded.
    session = await open();
    expect(recordedSystemPrompt(session)).toBe("Be brief.");
    await drain(agentOn(session, "Be brief.").prompt("three"));
    await drain(agentOn(session, "Be thorough.").prompt("four"));
    // A run without a system prompt after one with it records the change to none.
    await drain(agentOn(session).prompt("five"));
    await drain(agentOn(session).prompt("six"));
    await session.close();

    const records = await linesOfType(SYSTEM_PROMPT_CUSTOM_TYPE);
    expect(records.map((entry) => [entry.type, entry.data])).toEqual([
      ["custom", { text: "Be brief." }],
      ["custom", { text: "Be thorough." }],
      ["custom", { text: "" }],
    ]);
    session = await openSessionFile(file(), { readOnly: true });
    expect(session.problems).toEqual([]);
    const kinds = session.getBranch().map(label);
    expect(kinds.slice(0, 3)).toEqual([
      `custom:${SYSTEM_PROMPT_CUSTOM_TYPE}`,
      "message:user",
      "message:assistant",
    ]);
    expect(kinds.filter((kind) => kind === "message:user")).toHaveLength(6);
    // Never part of what the model is sent.
    expect(
      session.buildSessionContext().messages.every((message) => message.role !== "custom"),
    ).toBe(true);
    await session.close();
  });

  it("reads the prompt of the path: another branch shows the prompt its runs used", async () => {
    const session = await open();
    await drain(agentOn(session, "First prompt.").prompt("one"));
    const beforeChange = session.getLeafId();
    await drain(agentOn(session, "Second prompt.").prompt("two"));
    expect(recordedSystemPrompt(session)).toBe("Second prompt.");
    expect(recordedSystemPrompt(session, beforeChange)).toBe("First prompt.");
    expect(recordedSystemPrompt(session, null)).toBeUndefined();

    // Back on the first branch, the second prompt is recorded again for this path.
    await session.branch(beforeChange as string);
    await drain(agentOn(session, "Second prompt.").prompt("two again"));
    expect(
      session.getBranch().filter((entry) => label(entry) === `custom:${SYSTEM_PROMPT_CUSTOM_TYPE}`),
    ).toHaveLength(2);
    await session.close();
  });

  it("records nothing for a session that never had a system prompt", async () => {
    const session = await open();
    await drain(agentOn(session).prompt("one"));
    await drain(agentOn(session, "").prompt("two"));
    expect(session.getEntries().map(label)).not.toContain(`custom:${SYSTEM_PROMPT_CUSTOM_TYPE}`);
    await session.close();
  });

  it.each([
    ["data that is not an object", "Be brief."],
    ["a text that is not a string", { text: 42 }],
    ["no text at all", { prompt: "Be brief." }],
  ])("skips a malformed record (%s) and records the prompt anew", async (_what, data) => {
    const session = await open();
    await session.appendCustomEntry(SYSTEM_PROMPT_CUSTOM_TYPE, data);
    expect(recordedSystemPrompt(session)).toBeUndefined();
    await drain(agentOn(session, "Be brief.").prompt("one"));
    expect(recordedSystemPrompt(session)).toBe("Be brief.");
    // The malformed record is kept as it was.
    expect(session.getEntries()[0]).toMatchObject({ type: "custom", data });
    await session.close();
  });

  it("records the prompt an extension put in place for the run", async () => {
    const session = await open();
    const runner = new ExtensionRunner({ cwd: dir });
    await runner.addExtension("pirate", (arbor) =>
      arbor.on("before_agent_start", (event) => ({ systemPrompt: `${event.systemPrompt} Arr.` })),
    );
    const agent = new AgentSession({
      targets: [{ model: scripted("alpha", ["ok"]) }],
      session,
      systemPrompt: "Be brief.",
      extensions: runner,
    });
    await drain(agent.prompt("one"));
    expect(recordedSystemPrompt(session)).toBe("Be brief. Arr.");
    await session.close();
  });
});

describe("a change of working directory is recorded as a custom message", () => {
  it("stores a shown context switch the model reads, once per change, against the header's cwd", async () => {
    const session = await open();
    const model = scripted("alpha", ["ok"]);
    const agent = new AgentSession({ targets: [{ model }], session });
    expect(recordedWorkingDirectory(session)).toBe("/srv/project");

    expect(await agent.setWorkingDirectory("/srv/project")).toBeUndefined();
    const id = await agent.setWorkingDirectory("/srv/other");
    expect(await agent.setWorkingDirectory("/srv/other")).toBeUndefined();
    await drain(agent.prompt("Where are we?"));
    await session.close();

    const [record] = await linesOfType(CONTEXT_SWITCH_CUSTOM_TYPE);
    expect(record).toMatchObject({
      type: "custom_message",
      id,
      customType: CONTEXT_SWITCH_CUSTOM_TYPE,
      content: "Context changed to: /srv/other",
      display: true,
      details: { directory: "/srv/other", previousDirectory: "/srv/project" },
    });
    expect(await linesOfType(CONTEXT_SWITCH_CUSTOM_TYPE)).toHaveLength(1);
    expect(model.requests[0]?.messages[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Context changed to: /srv/other" }],
    });
    const reopened = await openSessionFile(file(), { readOnly: true });
    expect(recordedWorkingDirectory(reopened)).toBe("/srv/other");
    expect(recordedWorkingDirectory(reopened, null)).toBe("/srv/project");
    await reopened.close();
  });

  it("follows the path: moving back before a switch makes the older directory current again", async () => {
    const session = await open();
    const agent = agentOn(session);
    await drain(agent.prompt("one"));
    const before = session.getLeafId() as string;
    await agent.setWorkingDirectory("/srv/a");
    await agent.setWorkingDirectory("/srv/b");
    expect(recordedWorkingDirectory(session)).toBe("/srv/b");
    await agent.navigateTree(before);
    expect(recordedWorkingDirectory(session)).toBe("/srv/project");
    // Switching to /srv/b again on this branch is a change here.
    expect(await agent.setWorkingDirectory("/srv/b")).toEqual(expect.any(String));
    await session.close();
  });

  it.each([
    ["an empty path", ""],
    ["a blank path", "   "],
    ["a path with a NUL", "/srv/a\0b"],
    ["a number", 42],
    ["undefined", undefined],
  ])(
    "rejects %s with a typed error naming workingDirectory and stores nothing",
    async (_what, bad) => {
      const session = await open();
      const agent = agentOn(session);
      const error = await agent
        .setWorkingDirectory(bad as string)
        .catch((thrown: unknown) => thrown);
      expect(InvalidAgentOptionsError.isInstance(error)).toBe(true);
      expect((error as InvalidAgentOptionsError).option).toBe("workingDirectory");
      expect(session.getEntries()).toEqual([]);
      await session.close();
    },
  );

  it("refuses a switch while a prompt runs", async () => {
    const session = await open();
    const agent = agentOn(session);
    const run = agent.prompt("one");
    await expect(agent.setWorkingDirectory("/srv/x")).rejects.toSatisfy(AgentBusyError.isInstance);
    await drain(run);
    await session.close();
  });
});
