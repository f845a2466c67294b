import { ScriptedModel } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { AgentBusyError, AgentClosedError, defineTool } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedHostOptions } from "../../test/host-fixtures.js";
import { defineAgent } from "../definition/index.js";
import { InvalidHostOptionsError, UnknownProviderError } from "../errors/index.js";
import { AgentHost } from "./agent-host.js";

const usage = { input: 100, output: 20 };

describe("AgentHost", () => {
  it("prompts on a new session of a store and stores the exchange", async () => {
    const { options, model } = scriptedHostOptions([
      { blocks: [{ type: "text", text: "Hi there" }], usage },
    ]);
    const host = await AgentHost.open(options);
    const run = host.prompt("Hello");
    const deltas: string[] = [];
    for await (const event of run.events) if (event.type === "text_delta") deltas.push(event.delta);
    const result = await run.result;
    expect(result.success).toBe(true);
    expect(deltas.join("")).toBe("Hi there");
    expect(model.requests[0]?.system).toBe("You help.");
    const roles = host.session
      .getBranch()
      .flatMap((entry) => (isEntryOfType(entry, "message") ? [entry.message.role] : []));
    expect(roles).toEqual(["user", "assistant"]);
    await host.close();
  });

  it("rejects a prompt while one runs with a typed error, and keeps the running one", async () => {
    const { options } = scriptedHostOptions([
      { blocks: [{ type: "text", text: "slow answer" }], chunkSize: 1, delayMs: 5 },
    ]);
    const host = await AgentHost.open(options);
    const run = host.prompt("first");
    const operations: Array<() => unknown> = [
      () => host.prompt("second"),
      () => host.setModel("scripted/other"),
      () => host.setThinkingLevel("high"),
      () => host.navigate(null),
      () => host.fork(),
      () => host.compact(),
      () => host.switchSession({ create: { cwd: "/p" } }),
    ];
    for (const operation of operations) {
      const error = await Promise.resolve()
        .then(operation)
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      expect(AgentBusyError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "agent_busy" });
      expect((error as Error).message).toMatch(/while the host is busy \(prompt\)/);
    }
    expect(host.state().busy).toBe("prompt");
    const result = await run.result;
    expect(result.success).toBe(true);
    expect(host.state().busy).toBeUndefined();
    const texts = host.session
      .getEntries()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "user"
          ? [entry.message.content]
          : [],
      );
    expect(texts).toEqual(["first"]);
    await host.close();
  });

  it("rejects a prompt while a branch summary is written, and shows what it is busy with", async () => {
    const { options } = scriptedHostOptions([
      "one",
      "two",
      { blocks: [{ type: "text", text: "The branch asked for two." }], chunkSize: 2, delayMs: 5 },
    ]);
    const host = await AgentHost.open(options);
    await host.prompt("first").result;
    const back = host.session.getLeafId();
    await host.prompt("second").result;
    const navigation = host.navigate(back, { summarize: true });
    expect(host.state().busy).toBe("navigate");
    expect(() => host.prompt("third")).toThrow(/while the host is busy \(navigate\)/);
    await navigation;
    expect(host.state().busy).toBeUndefined();
    const leaf = host.session.getBranch().at(-1);
    expect(leaf).toMatchObject({ type: "branch_summary" });
    await host.close();
  });

  it("aborts mid-stream: the partial answer is stored and marked aborted", async () => {
    const { options } = scriptedHostOptions([
      { blocks: [{ type: "text", text: "a".repeat(200) }], chunkSize: 1, delayMs: 2 },
    ]);
    const host = await AgentHost.open(options);
    const run = host.prompt("write a lot");
    let seen = 0;
    for await (const event of run.events) {
      if (event.type === "text_delta" && ++seen === 5) host.abort();
    }
    const result = await run.result;
    expect(result).toMatchObject({ success: false, reason: "aborted" });
    const last = host.session.getBranch().at(-1);
    expect(last && isEntryOfType(last, "message") && last.message.role === "assistant").toBe(true);
    const message = last && isEntryOfType(last, "message") ? last.message : undefined;
    expect(message).toMatchObject({ stopReason: "aborted" });
    const text = JSON.stringify(message?.content);
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toContain("a".repeat(200));
    expect(host.state().busy).toBeUndefined();
    await host.close();
  });

  it("derives its state from the session: a change underneath shows at once", async () => {
    const { options } = scriptedHostOptions([
      { blocks: [{ type: "text", text: "Hi" }], usage },
      { blocks: [{ type: "text", text: "Again" }], usage: { input: 300, output: 50 } },
    ]);
    const host = await AgentHost.open(options);
    const empty = host.state();
    expect(empty).toMatchObject({
      title: undefined,
      model: { provider: "arbor", id: "scripted" },
      thinkingLevel: "off",
      usage: { input: 0, output: 0, cost: 0 },
      contextTokens: 0,
      busy: undefined,
      closed: false,
    });
    await host.prompt("Plan the garden").result;
    const after = host.state();
    expect(after.title).toBe("Plan the garden");
    expect(after.usage).toMatchObject({ input: 100, output: 20 });
    expect(after.usage.cost).toBeGreaterThan(0);
    expect(after.contextTokens).toBeGreaterThan(0);

    // Changed behind the host's back: the session is the only source of truth.
    await host.session.appendSessionInfo("Renamed");
    await host.session.appendThinkingLevelChange("high");
    expect(host.state()).toMatchObject({ title: "Renamed", thinkingLevel: "high" });
    const firstLeaf = host.session.getLeafId() as string;
    await host.prompt("More").result;
    expect(host.state().usage).toMatchObject({ input: 400, output: 70 });
    // Moving the leaf back changes the context size but not what the session used.
    const full = host.state().contextTokens;
    await host.session.branch(firstLeaf);
    expect(host.state().contextTokens).toBeLessThan(full);
    expect(host.state().usage).toMatchObject({ input: 400, output: 70 });
    await host.close();
    expect(host.state().closed).toBe(true);
  });

  it("counts stream rule hits from the session, the definition's rules beside the app's", async () => {
    const base = scriptedHostOptions([
      { blocks: [{ type: "text", text: "use var x = 1" }], chunkSize: 3 },
      "let x = 1",
    ]);
    const definition = defineAgent({
      ...base.options.agent,
      streamRules: [{ name: "no-var", condition: "\\bvar\\b", content: "Use let or const." }],
    });
    const host = await AgentHost.open({ ...base.options, agent: definition });
    expect(host.state().ruleHits.size).toBe(0);
    const result = await host.prompt("declare x").result;
    expect(result.success).toBe(true);
    expect([...host.state().ruleHits]).toEqual([["no-var", 1]]);
    expect(base.model.requests).toHaveLength(2);
    await host.close();
  });

  it("takes the stream-rule manager's budgets from ruleOptions", async () => {
    const violating = { blocks: [{ type: "text" as const, text: "use var x = 1" }], chunkSize: 3 };
    const ruled = (options: ReturnType<typeof scriptedHostOptions>["options"]) =>
      defineAgent({
        ...options.agent,
        streamRules: [{ name: "no-var", condition: "\\bvar\\b", content: "Use let or const." }],
      });
    // The default budget lets the rule interrupt; a session budget of none lets the answer stand.
    const open = scriptedHostOptions([violating, "let x = 1"]);
    const free = await AgentHost.open({ ...open.options, agent: ruled(open.options) });
    await free.prompt("declare x").result;
    expect(open.model.requests).toHaveLength(2);
    await free.close();

    const capped = scriptedHostOptions([violating]);
    const host = await AgentHost.open({
      ...capped.options,
      agent: ruled(capped.options),
      ruleOptions: { maxInterruptsPerSession: 0 },
    });
    const result = await host.prompt("declare x").result;
    expect(result).toMatchObject({ success: true, finalReport: { value: "use var x = 1" } });
    expect(capped.model.requests).toHaveLength(1);
    await host.close();
  });

  it("sends no system prompt for a definition without one", async () => {
    const base = scriptedHostOptions(["hello"]);
    const { systemPrompt: _, ...rest } = base.options.agent;
    const definition = defineAgent(rest);
    expect(definition.systemPrompt).toBeUndefined();
    const host = await AgentHost.open({ ...base.options, agent: definition });
    await host.prompt("hi").result;
    expect(base.model.requests[0]?.system).toBeUndefined();
    await host.close();
    expect(() => defineAgent({ ...rest, systemPrompt: "  \n" })).toThrow(/system prompt is empty/);
  });

  it("sends the definition's sampling knobs with every request", async () => {
    const base = scriptedHostOptions(["hello"]);
    const sampling = {
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      frequencyPenalty: 0.5,
      presencePenalty: -0.5,
      seed: 7,
      stop: ["END"],
    };
    const definition = defineAgent({ ...base.options.agent, limits: sampling });
    const host = await AgentHost.open({ ...base.options, agent: definition });
    await host.prompt("hi").result;
    expect(base.model.requests[0]).toMatchObject(sampling);
    await host.close();
    for (const limits of [{ topP: 1.5 }, { frequencyPenalty: 3 }, { seed: 0.5 }, { stop: [] }]) {
      expect(() => defineAgent({ ...base.options.agent, limits })).toThrow(
        new RegExp(`limits\\.${Object.keys(limits)[0]}`),
      );
    }
  });

  it("uses the definition's thinking level until the session chooses one", async () => {
    const base = scriptedHostOptions(["one", "two", "three"]);
    const definition = defineAgent({ ...base.options.agent, thinking: "medium" });
    const host = await AgentHost.open({ ...base.options, agent: definition });
    expect(host.state().thinkingLevel).toBe("medium");
    await host.prompt("a").result;
    expect(base.model.requests[0]?.reasoning).toBe("medium");
    await host.setThinkingLevel("off");
    expect(host.state().thinkingLevel).toBe("off");
    await host.prompt("b").result;
    expect(base.model.requests[1]?.reasoning).toBe("off");
    await host.setThinkingLevel("high");
    await host.prompt("c").result;
    expect(base.model.requests[2]?.reasoning).toBe("high");
    await host.close();
  });

  it("sets the model by target text, and refuses unknown providers and bad text", async () => {
    const other = new ScriptedModel({
      responses: ["from other"],
      info: { ...new ScriptedModel({ responses: [] }).info, id: "other" },
    });
    const base = scriptedHostOptions([]);
    const host = await AgentHost.open({
      ...base.options,
      models: (target) => {
        if (target.provider !== "scripted")
          throw new UnknownProviderError(target.provider, ["scripted"]);
        return target.model === "other" ? other : base.model;
      },
    });
    await host.setModel("scripted/other");
    expect(host.state().model.id).toBe("other");
    expect((await host.prompt("hi").result).success).toBe(true);
    expect(other.requests).toHaveLength(1);
    await expect(host.setModel("nope/x")).rejects.toSatisfy(UnknownProviderError.isInstance);
    await expect(host.setModel("bad provider/x")).rejects.toSatisfy(
      InvalidHostOptionsError.isInstance,
    );
    expect(host.state().model.id).toBe("other");
    await host.close();
  });

  it("navigates the tree and forks into a new session of the store", async () => {
    const { options, store } = scriptedHostOptions(["one", "two", "three"]);
    const host = await AgentHost.open(options);
    await host.prompt("first").result;
    const afterFirst = host.session.getLeafId();
    await host.prompt("second").result;
    const original = host.session.id;
    const originalEntries = host.session.getEntries().length;

    await host.navigate(afterFirst);
    expect(host.session.getLeafId()).toBe(afterFirst);
    const sessionChanges: string[] = [];
    host.onSessionChange((session) => sessionChanges.push(session.id));

    const forked = await host.fork();
    expect(forked.id).not.toBe(original);
    expect(host.session).toBe(forked);
    expect(host.state().sessionId).toBe(forked.id);
    expect(sessionChanges).toEqual([forked.id]);
    expect(forked.getHeader().parentSession).toBeDefined();
    const forkedTexts = forked
      .getBranch()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "user"
          ? [entry.message.content]
          : [],
      );
    expect(forkedTexts).toEqual(["first"]);
    await host.prompt("third").result;

    // Nothing of the original was lost, and it did not get the fork's prompt.
    const reopened = await store.open(original, { readOnly: true });
    expect(reopened.getEntries()).toHaveLength(originalEntries);
    await reopened.close();
    await host.close();
  });

  it("takes a user message back for editing: the leaf moves before it, nothing is lost", async () => {
    const { options } = scriptedHostOptions(["one", "two", "edited answer"]);
    const host = await AgentHost.open(options);
    await host.prompt("first").result;
    await host.prompt("secnod").result;
    const entries = host.session.getEntries().length;
    const second = host.session
      .getBranch()
      .find((entry) => isEntryOfType(entry, "message") && entry.message.content === "secnod");
    const { text, navigation } = await host.editMessage(second?.id as string);
    expect(text).toBe("secnod");
    expect(navigation.newLeafId).toBe(second?.parentId);
    await host.prompt("second").result;
    const path = host.session
      .getBranch()
      .flatMap((entry) => (isEntryOfType(entry, "message") ? [entry.message.content] : []));
    expect(path.filter((content) => typeof content === "string")).toEqual(["first", "second"]);
    expect(host.session.getEntries().length).toBe(entries + 2);
    for (const bad of [host.session.getBranch().at(-1)?.id as string, "no-such-entry"]) {
      await expect(host.editMessage(bad)).rejects.toSatisfy(InvalidHostOptionsError.isInstance);
    }
    await host.close();
  });

  it("gives the agent only the definition's tools, its limits and its output schema", async () => {
    const tool = (name: string) =>
      defineTool({
        name,
        description: name,
        parameters: z.object({}),
        execute: () => `${name} ran`,
      });
    // Turn 2 is the forced final turn: its tool calls are rejected until retries run out.
    const base = scriptedHostOptions([
      { blocks: [{ type: "toolCall", name: "grep", arguments: {} }] },
      { blocks: [{ type: "toolCall", name: "grep", arguments: {} }] },
      { blocks: [{ type: "toolCall", name: "grep", arguments: {} }] },
      { blocks: [{ type: "toolCall", name: "grep", arguments: {} }] },
    ]);
    const definition = defineAgent({
      ...base.options.agent,
      tools: ["grep"],
      limits: { maxTurns: 2, maxOutputTokens: 321 },
    });
    const host = await AgentHost.open({
      ...base.options,
      agent: definition,
      tools: [tool("read_file"), tool("grep"), tool("write_file")],
    });
    const result = await host.prompt("search").result;
    expect(result).toMatchObject({ success: false, reason: "max_turns" });
    const request = base.model.requests[0];
    expect(request?.tools?.map((offered) => offered.name)).toEqual(["grep"]);
    expect(request?.maxOutputTokens).toBe(321);
    await host.close();

    const reporting = scriptedHostOptions([
      {
        blocks: [
          { type: "toolCall", name: "final_report", arguments: { report: { verdict: "ok" } } },
        ],
      },
    ]);
    const withSchema = defineAgent({
      ...reporting.options.agent,
      outputSchema: {
        type: "object",
        properties: { verdict: { type: "string" } },
        required: ["verdict"],
      },
    });
    const reporter = await AgentHost.open({ ...reporting.options, agent: withSchema });
    const report = await reporter.prompt("judge").result;
    expect(report.finalReport).toMatchObject({ status: "delivered", value: { verdict: "ok" } });
    await reporter.close();
  });

  it("refuses options that cannot work, naming the option", async () => {
    const { options } = scriptedHostOptions([]);
    const cases = [
      { ...options, sessionId: "x" },
      { ...options, create: undefined },
      { ...options, sessionDir: "/tmp/sessions" },
      { ...options, store: undefined },
      { ...options, agent: defineAgent({ ...options.agent, tools: ["grep"] }) },
      { ...options, agent: defineAgent({ ...options.agent, extensions: ["/x.ts"] }) },
    ];
    const fields = [];
    for (const bad of cases) {
      const error = await AgentHost.open(bad as never).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(InvalidHostOptionsError.isInstance(error)).toBe(true);
      fields.push((error as InvalidHostOptionsError).option);
    }
    expect(fields).toEqual([
      "sessionId",
      "sessionId",
      "store",
      "store",
      "definition.tools[0]",
      "extensions",
    ]);
  });

  it("refuses everything but state() after close, and close twice is fine", async () => {
    const { options } = scriptedHostOptions([]);
    const host = await AgentHost.open(options);
    await Promise.all([host.close(), host.close()]);
    await host.close();
    expect(() => host.prompt("x")).toThrow(AgentClosedError);
    await expect(host.fork()).rejects.toSatisfy(AgentClosedError.isInstance);
    await expect(host.switchSession({ create: { cwd: "/p" } })).rejects.toSatisfy(
      AgentClosedError.isInstance,
    );
    expect(host.state().closed).toBe(true);
  });
});
