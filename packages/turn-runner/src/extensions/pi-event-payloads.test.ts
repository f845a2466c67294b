import type { SessionBeforeCompactEvent, SessionBeforeTreeEvent } from "@arbor/extensions-api";
import { TtsrManager } from "@arbor/ttsr";
import { describe, expect, it } from "vitest";
import { agentWithExtensions, recorder, type SeenEvent } from "../../test/extension-fixtures.js";
import { drain } from "../../test/factories.js";
import { INITIAL_SUMMARY_PROMPT, UPDATE_SUMMARY_PROMPT } from "../compaction/index.js";

const long = (word: string) => `${word} `.repeat(120);
const settings = { keepRecentTokens: 200 };

/** The text of a scripted request, all of its messages and its system prompt. */
const requestText = (request: unknown) => JSON.stringify(request);

describe("session_before_compact carries pi's payload", () => {
  it("hands over the preparation, the branch, earlier compactions newest first, the model and the prompt", async () => {
    const events: SessionBeforeCompactEvent[] = [];
    const replacements: Array<(prompt: string) => string | undefined> = [
      () => undefined,
      (prompt) => `${prompt}\nName every function you saw.`,
      () => "List only the file names, one a line.",
    ];
    const { agent, session, model } = await agentWithExtensions({
      // Only the first compaction's summary is read back; later ones may take two calls
      // (a cut inside a turn summarizes that turn's beginning separately).
      responses: Array.from({ length: 16 }, (_, index) =>
        index === 3 ? "Summary one" : long(`word${index}`),
      ),
      extensions: {
        watcher: (arbor) =>
          arbor.on("session_before_compact", (event) => {
            events.push(structuredClone(event));
            const prompt = replacements[events.length - 1]?.(event.prompt);
            return prompt === undefined ? undefined : { prompt };
          }),
      },
    });
    const compactions: string[] = [];
    const branches: string[][] = [];
    const summaryRequests: string[][] = [];
    for (const prompts of [
      ["one", "two", "three"],
      ["four", "five"],
      ["six", "seven"],
    ]) {
      for (const prompt of prompts) await drain(agent.prompt(long(prompt)));
      branches.push(session.getBranch().map((entry) => entry.id));
      const before = model.requests.length;
      const outcome = await agent.extensions?.compact({
        model,
        settings,
        customInstructions: "keep the names",
      });
      expect(outcome).toMatchObject({ status: "compacted" });
      if (outcome?.status === "compacted") compactions.push(outcome.entryId);
      summaryRequests.push(model.requests.slice(before).map(requestText));
    }

    expect(events).toHaveLength(3);
    events.forEach((event, index) => {
      expect(event.branchEntries.map((entry) => entry.id)).toEqual(branches[index]);
      expect(event.model).toEqual({ provider: "alpha", modelId: "alpha-model" });
      expect(event.customInstructions).toBe("keep the names");
      expect(event.preparation).toMatchObject({
        firstKeptEntryId: event.firstKeptEntryId,
        tokensBefore: event.tokensBefore,
        fileOperations: { readFiles: [], modifiedFiles: [] },
      });
      expect(event.preparation.messagesToSummarize).toEqual(event.messagesToSummarize);
      expect(event.messagesToSummarize.length).toBeGreaterThan(0);
    });
    expect(events.map((event) => event.previousCompactions.map((entry) => entry.id))).toEqual([
      [],
      [compactions[0]],
      [compactions[1], compactions[0]],
    ]);
    expect(events[1]?.previousCompactions[0]).toMatchObject({
      type: "compaction",
      summary: "Summary one",
    });
    expect(events[0]?.preparation.previousSummary).toBeUndefined();
    expect(events[1]?.preparation.previousSummary).toBe("Summary one");
    expect(events.map((event) => event.prompt)).toEqual([
      INITIAL_SUMMARY_PROMPT,
      UPDATE_SUMMARY_PROMPT,
      UPDATE_SUMMARY_PROMPT,
    ]);

    // The summary requests: the runner's prompt, then an extended one, then a replacement.
    const quoted = (prompt: string) => JSON.stringify(prompt).slice(1, 60);
    const [first, second, third] = summaryRequests.map((requests) => requests.join("\n"));
    expect(first).toContain(quoted(INITIAL_SUMMARY_PROMPT));
    expect(second).toContain("Name every function you saw.");
    expect(second).toContain(quoted(UPDATE_SUMMARY_PROMPT));
    expect(third).toContain("List only the file names, one a line.");
    expect(third).not.toContain(quoted(UPDATE_SUMMARY_PROMPT));
    expect(third).not.toContain(quoted(INITIAL_SUMMARY_PROMPT));
    expect(session.getEntry(compactions[2] ?? "")).toMatchObject({ type: "compaction" });
  });

  it("a supplied summary skips the model whatever prompt was set", async () => {
    const { agent, session, model } = await agentWithExtensions({
      responses: [long("alpha"), long("beta"), long("gamma")],
      extensions: {
        both: (arbor) =>
          arbor.on("session_before_compact", () => ({ prompt: "Ignored.", summary: "Mine" })),
      },
    });
    for (const prompt of ["one", "two", "three"]) await drain(agent.prompt(long(prompt)));
    const outcome = await agent.extensions?.compact({ model, settings });
    expect(outcome).toMatchObject({ status: "compacted", fromHook: true, summary: "Mine" });
    expect(model.requests).toHaveLength(3);
    expect(session.getEntries().filter((entry) => entry.type === "compaction")).toHaveLength(1);
  });
});

describe("session_before_tree carries the common ancestor and whether a summary was asked for", () => {
  it("names the deepest shared entry for a target on the path, on a sibling branch and at the root", async () => {
    const events: SessionBeforeTreeEvent[] = [];
    const { agent, session } = await agentWithExtensions({
      responses: ["One", "Two", "Three"],
      extensions: {
        watcher: (arbor) =>
          arbor.on("session_before_tree", (event) => void events.push(structuredClone(event))),
      },
    });
    await drain(agent.prompt("first"));
    const firstAnswer = session.getLeafId() as string;
    await drain(agent.prompt("second"));
    const secondAnswer = session.getLeafId() as string;

    // Back up the path: the target itself is the common ancestor; no summary asked for.
    await agent.extensions?.navigateTree(firstAnswer);
    await drain(agent.prompt("third"));
    const thirdAnswer = session.getLeafId() as string;
    // Over to the sibling branch, with a summary of the branch left.
    await agent.extensions?.navigateTree(secondAnswer, { summarize: async () => "left third" });
    // Back to before the first entry: nothing is shared.
    await agent.extensions?.navigateTree(null, { summarize: false });
    // A branch summary on the way counts as part of the path.
    const summaryLeaf = session.getLeafId();

    expect(
      events.map(({ targetId, oldLeafId, commonAncestorId, userWantsSummary }) => ({
        targetId,
        oldLeafId,
        commonAncestorId,
        userWantsSummary,
      })),
    ).toEqual([
      {
        targetId: firstAnswer,
        oldLeafId: secondAnswer,
        commonAncestorId: firstAnswer,
        userWantsSummary: false,
      },
      {
        targetId: secondAnswer,
        oldLeafId: thirdAnswer,
        commonAncestorId: firstAnswer,
        userWantsSummary: true,
      },
      {
        targetId: null,
        oldLeafId: expect.any(String),
        commonAncestorId: null,
        userWantsSummary: false,
      },
    ]);
    expect(events[2]?.oldLeafId).not.toBe(secondAnswer);
    expect(summaryLeaf).toBeNull();
    expect(events[1]?.entriesToSummarize.map((entry) => entry.id)).toContain(thirdAnswer);
  });
});

describe("ttsr_triggered carries the rules, not only their names", () => {
  it("gives each rule's name, path, content and scope (the default scope when none was set)", async () => {
    const seen: SeenEvent[] = [];
    const ttsr = new TtsrManager();
    ttsr.addRule({
      name: "no-console",
      path: "/repo/.arbor/rules/no-console.md",
      content: "Use the logger.",
      condition: "console\\.log",
      contextMode: "discard",
    });
    ttsr.addRule({
      name: "no-debug-output",
      content: "No debug output in answers.",
      condition: "console",
      scope: ["text", "thinking"],
      contextMode: "discard",
    });
    const { agent } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "text", text: "Add console.log(x) here" }], chunkSize: 30 },
        "Use logger.debug(x).",
      ],
      agent: { ttsr, projectRoot: "/repo" },
      extensions: { recorder: recorder(seen, ["ttsr_triggered"]) },
    });

    await drain(agent.prompt("Debug it"));

    expect(seen.map(({ event }) => event)).toEqual([
      {
        type: "ttsr_triggered",
        turnIndex: 0,
        rules: expect.arrayContaining([
          {
            name: "no-console",
            path: "/repo/.arbor/rules/no-console.md",
            content: "Use the logger.",
            scope: ["text", "tool"],
          },
          {
            name: "no-debug-output",
            content: "No debug output in answers.",
            scope: ["text", "thinking"],
          },
        ]),
        source: { kind: "text" },
      },
    ]);
    const [event] = seen;
    expect(event?.event.type === "ttsr_triggered" && event.event.rules).toHaveLength(2);
  });
});
