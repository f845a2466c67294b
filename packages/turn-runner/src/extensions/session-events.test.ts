import { ExtensionApiError } from "@arbor/extensions-api";
import { isEntryOfType } from "@arbor/session-store";
import { TtsrManager } from "@arbor/ttsr";
import { describe, expect, it } from "vitest";
import {
  agentWithExtensions,
  capture,
  recorder,
  type SeenEvent,
} from "../../test/extension-fixtures.js";
import { drain, recordingSleep, scripted, shape } from "../../test/factories.js";

const kinds = (session: Parameters<typeof shape>[0]) => shape(session).map(([, kind]) => kind);
const long = (word: string) => `${word} `.repeat(120);

describe("session lifecycle, tree, model, stream-rule and compaction events", () => {
  it("session_start and session_shutdown; after shutdown session calls are refused", async () => {
    const seen: SeenEvent[] = [];
    const ext = capture();
    const { agent, session } = await agentWithExtensions({
      extensions: { recorder: recorder(seen), api: ext.factory },
    });

    await agent.extensions?.start("fork", "parent-session");
    await agent.extensions?.shutdown();

    expect(seen.map(({ event }) => event)).toEqual([
      {
        type: "session_start",
        reason: "fork",
        sessionId: session.id,
        previousSessionId: "parent-session",
      },
      { type: "session_shutdown", sessionId: session.id },
    ]);
    const refused = await ext
      .api()
      .appendEntry("state", {})
      .catch((error: unknown) => error);
    expect(ExtensionApiError.isInstance(refused) && refused.code).toBe("host_unavailable");
  });

  it("session_start: an extension restores its state from the branch", async () => {
    const restored: unknown[] = [];
    const { agent, session } = await agentWithExtensions({
      extensions: {
        counter: (arbor) =>
          arbor.on("session_start", (_event, ctx) => {
            for (const entry of ctx.session.getBranch())
              if (isEntryOfType(entry, "custom") && entry.customType === "counter")
                restored.push(entry.data);
          }),
      },
    });
    await session.appendCustomEntry("counter", { count: 7 });
    await agent.extensions?.start("resume");
    expect(restored).toEqual([{ count: 7 }]);
  });

  it("session_before_tree: cancel keeps the leaf; a summary becomes the branch_summary", async () => {
    const seen: SeenEvent[] = [];
    let mode: "cancel" | "summary" = "cancel";
    const { agent, session } = await agentWithExtensions({
      responses: ["One", "Two"],
      extensions: {
        recorder: recorder(seen, ["session_before_tree", "session_tree"]),
        tree: (arbor) =>
          arbor.on("session_before_tree", (event) =>
            mode === "cancel"
              ? { cancel: true }
              : {
                  summary: `left ${event.entriesToSummarize.length} entries`,
                  details: { by: "tree" },
                },
          ),
      },
    });
    await drain(agent.prompt("first"));
    await drain(agent.prompt("second"));
    const leaf = session.getLeafId();

    const cancelled = await agent.extensions?.navigateTree("e2");
    expect(cancelled).toEqual({ cancelled: true, extensionName: "tree" });
    expect(session.getLeafId()).toBe(leaf);
    expect(seen.map(({ event }) => event.type)).toEqual(["session_before_tree"]);

    mode = "summary";
    const moved = await agent.extensions?.navigateTree("e2");

    expect(moved).toMatchObject({ cancelled: false, oldLeafId: "e4", fromExtension: true });
    const summaryId = moved && !moved.cancelled ? moved.summaryEntryId : undefined;
    expect(session.getEntry(summaryId ?? "")).toMatchObject({
      type: "branch_summary",
      parentId: "e2",
      summary: "left 2 entries",
      details: { by: "tree" },
    });
    expect(seen[1]).toMatchObject({
      event: { type: "session_before_tree", targetId: "e2", oldLeafId: "e4" },
      leafId: "e4",
    });
    expect(seen[2]).toMatchObject({
      event: { type: "session_tree", newLeafId: summaryId, oldLeafId: "e4", fromExtension: true },
      leafId: summaryId,
    });
  });

  it("navigation without a supplied summary moves the leaf plainly or with the app's summarizer", async () => {
    const { agent, session } = await agentWithExtensions({ responses: ["One", "Two"] });
    await drain(agent.prompt("first"));
    await drain(agent.prompt("second"));

    const plain = await agent.extensions?.navigateTree("e2");
    expect(plain).toEqual({
      cancelled: false,
      newLeafId: "e2",
      oldLeafId: "e4",
      fromExtension: false,
    });
    expect(session.getLeafId()).toBe("e2");

    const summarized = await agent.extensions?.navigateTree(null, {
      summarize: async (entries) => `summary of ${entries.length}`,
    });
    expect(summarized).toMatchObject({ cancelled: false, oldLeafId: "e2", fromExtension: false });
    expect(session.getEntry(session.getLeafId() ?? "")).toMatchObject({
      type: "branch_summary",
      summary: "summary of 2",
    });
  });

  it("model_select: emitted when failover moves to another model, and for app changes", async () => {
    const seen: SeenEvent[] = [];
    const alpha = scripted("alpha", [{ error: { kind: "auth_error" } }]);
    const beta = scripted("beta", ["from beta"]);
    const { agent } = await agentWithExtensions({
      agent: { targets: [{ model: alpha }, { model: beta }], sleep: recordingSleep().sleep },
      extensions: { recorder: recorder(seen, ["model_select", "before_provider_request"]) },
    });

    const { result } = await drain(agent.prompt("Hi"));
    await agent.extensions?.selectModel(
      { provider: "gamma", modelId: "g-1" },
      { provider: "beta", modelId: "beta-model" },
      "set",
    );

    expect(result.success).toBe(true);
    expect(seen.map(({ event }) => event)).toEqual([
      expect.objectContaining({
        type: "before_provider_request",
        model: { provider: "alpha", modelId: "alpha-model" },
      }),
      {
        type: "model_select",
        model: { provider: "beta", modelId: "beta-model" },
        previousModel: { provider: "alpha", modelId: "alpha-model" },
        source: "failover",
      },
      expect.objectContaining({
        type: "before_provider_request",
        model: { provider: "beta", modelId: "beta-model" },
      }),
      {
        type: "model_select",
        model: { provider: "gamma", modelId: "g-1" },
        previousModel: { provider: "beta", modelId: "beta-model" },
        source: "set",
      },
    ]);
  });

  it("model_select: resuming announces the model the session last used, once", async () => {
    const first = await agentWithExtensions({ responses: ["Hello"] });
    await drain(first.agent.prompt("Hi"));
    const seen: SeenEvent[] = [];
    const { agent } = await agentWithExtensions({
      session: first.session,
      responses: ["Again"],
      extensions: { recorder: recorder(seen, ["model_select"]) },
    });

    await agent.extensions?.start("resume");
    await drain(agent.prompt("Still there?"));

    expect(seen.map(({ event }) => event)).toEqual([
      {
        type: "model_select",
        model: { provider: "alpha", modelId: "alpha-model" },
        previousModel: null,
        source: "restore",
      },
    ]);
  });

  it("model_select: a resumed session announces the model its next request goes to, not the failover target", async () => {
    const first = await agentWithExtensions({
      agent: {
        targets: [
          { model: scripted("alpha", [{ error: { kind: "rate_limit" } }]) },
          { model: scripted("beta", ["from beta"]) },
        ],
        sleep: recordingSleep().sleep,
      },
    });
    await drain(first.agent.prompt("Hi"));
    expect(first.session.buildSessionContext().model).toEqual({
      provider: "beta",
      modelId: "beta-model",
    });
    const seen: SeenEvent[] = [];
    const { agent } = await agentWithExtensions({
      session: first.session,
      agent: {
        targets: [{ model: scripted("alpha", ["alpha again"]) }, { model: scripted("beta", []) }],
      },
      extensions: { recorder: recorder(seen, ["model_select", "before_provider_request"]) },
    });

    await agent.extensions?.start("resume");
    await drain(agent.prompt("Still there?"));

    expect(seen.map(({ event }) => event)).toEqual([
      {
        type: "model_select",
        model: { provider: "alpha", modelId: "alpha-model" },
        previousModel: null,
        source: "restore",
      },
      expect.objectContaining({
        type: "before_provider_request",
        model: { provider: "alpha", modelId: "alpha-model" },
      }),
    ]);
  });

  it("ttsr_triggered: after the interrupt is stored, before the retried request", async () => {
    const seen: SeenEvent[] = [];
    const ttsr = new TtsrManager();
    ttsr.addRule({
      name: "no-console",
      path: "/repo/.arbor/rules/no-console.md",
      content: "Use the logger.",
      condition: "console\\.log",
      contextMode: "discard",
    });
    const { agent } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "text", text: "Add console.log(x) here" }], chunkSize: 3 },
        "Use logger.debug(x).",
      ],
      agent: { ttsr, projectRoot: "/repo" },
      extensions: {
        recorder: recorder(seen, ["ttsr_triggered", "before_provider_request"]),
      },
    });

    await drain(agent.prompt("Debug it"));

    expect(seen.map(({ event }) => event.type)).toEqual([
      "before_provider_request",
      "ttsr_triggered",
      "before_provider_request",
    ]);
    expect(seen[1]?.event).toEqual({
      type: "ttsr_triggered",
      turnIndex: 0,
      rules: [
        {
          name: "no-console",
          path: "/repo/.arbor/rules/no-console.md",
          content: "Use the logger.",
          scope: ["text", "tool"],
        },
      ],
      source: { kind: "text" },
    });
    expect(seen[1]?.stored).toContain("ttsr_injection");
  });

  it("session_before_compact: cancel stops a compaction; a summary is stored instead of asking the model", async () => {
    const seen: SeenEvent[] = [];
    let cancel = true;
    const { agent, session, model } = await agentWithExtensions({
      responses: [long("alpha"), long("beta"), long("gamma")],
      extensions: {
        recorder: recorder(seen, ["session_before_compact", "session_compact"]),
        compactor: (arbor) =>
          arbor.on("session_before_compact", (event) =>
            cancel
              ? { cancel: true }
              : { summary: `${event.messagesToSummarize.length} messages, kept for later` },
          ),
      },
    });
    for (const prompt of [long("one"), long("two"), long("three")])
      await drain(agent.prompt(prompt));
    const settings = { keepRecentTokens: 200 };

    expect(await agent.extensions?.compact({ model, settings })).toEqual({
      status: "cancelled",
      reason: "manual",
    });
    expect(kinds(session)).not.toContain("compaction");

    cancel = false;
    const outcome = await agent.extensions?.compact({
      model,
      settings,
      customInstructions: "be short",
    });

    expect(outcome).toMatchObject({ status: "compacted", fromHook: true });
    expect(model.requests).toHaveLength(3);
    const compaction = session.getEntries().find((entry) => entry.type === "compaction");
    expect(compaction).toMatchObject({ fromHook: true });
    expect(seen.map(({ event }) => event.type)).toEqual([
      "session_before_compact",
      "session_before_compact",
      "session_compact",
    ]);
    expect(seen[1]?.event).toMatchObject({ reason: "manual", customInstructions: "be short" });
    expect(seen[1]?.stored).not.toContain("compaction");
    expect(seen[2]).toMatchObject({
      event: { type: "session_compact", entryId: compaction?.id, fromExtension: true },
      leafId: compaction?.id,
    });
    const summary = (compaction as { summary?: string } | undefined)?.summary ?? "";
    expect(summary).toMatch(/messages, kept for later$/);
  });
});
