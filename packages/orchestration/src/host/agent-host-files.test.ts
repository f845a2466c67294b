import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScriptedModel } from "@arbor/providers/test";
import { FileSessionStore, isEntryOfType } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordingExtensions, scriptedHostOptions } from "../../test/host-fixtures.js";
import { AgentHost } from "./agent-host.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-host-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("AgentHost on session files", () => {
  it("creates, resumes and forks sessions in a folder, losing nothing", async () => {
    const model = new ScriptedModel({
      responses: [
        { blocks: [{ type: "text", text: "Plant tomatoes." }], usage: { input: 50, output: 5 } },
        { blocks: [{ type: "text", text: "And basil." }], usage: { input: 80, output: 6 } },
        "Fork answer",
      ],
    });
    const { runner, log } = await recordingExtensions();
    const { agent: definition } = scriptedHostOptions([]).options;
    const common = { sessionDir: root, agent: definition, models: () => model, extensions: runner };
    const first = await AgentHost.open({ ...common, create: { cwd: "/project" } });
    await first.prompt("What should I plant?").result;
    const id = first.session.id;
    const location = first.session.location;
    await first.close();
    expect(location.startsWith(root)).toBe(true);
    expect(await readFile(location, "utf8")).toContain("Plant tomatoes.");

    const resumed = await AgentHost.open({ ...common, sessionId: id });
    expect(resumed.state()).toMatchObject({
      sessionId: id,
      title: "What should I plant?",
      usage: { input: 50, output: 5 },
    });
    await resumed.prompt("Anything else?").result;
    const forked = await resumed.fork();
    await resumed.prompt("In the fork").result;
    const forkLocation = resumed.session.location;
    await resumed.close();

    expect(forkLocation).not.toBe(location);
    const store = new FileSessionStore({ root });
    const original = await store.open(id, { readOnly: true });
    const userTexts = original
      .getBranch()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "user"
          ? [entry.message.content]
          : [],
      );
    expect(userTexts).toEqual(["What should I plant?", "Anything else?"]);
    await original.close();
    const fork = await store.open(forked.id, { readOnly: true });
    expect(fork.getHeader().parentSession).toBeDefined();
    expect(fork.getBranch().at(-1)).toMatchObject({
      type: "message",
      message: { role: "assistant" },
    });
    await fork.close();
    await store.close();
    expect(log).toEqual([
      `start:startup:${id}`,
      `shutdown:${id}`,
      `start:resume:${id}`,
      `shutdown:${id}`,
      `start:fork:${forked.id}`,
      `shutdown:${forked.id}`,
    ]);
  });
});
