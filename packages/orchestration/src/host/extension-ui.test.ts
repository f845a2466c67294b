import { type ExtensionCommandContext, ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedExtensionUI } from "@arbor/extensions-api/test";
import { isEntryOfType, type Session } from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedHostOptions } from "../../test/host-fixtures.js";
import { AgentHost } from "./agent-host.js";

/** A `bash` tool that records the commands it ran instead of running them. */
function recordingBash(ran: string[]): AgentTool {
  return defineTool({
    name: "bash",
    description: "Runs a shell command",
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
  }) as AgentTool;
}

const bashCall = (command: string) => ({
  blocks: [{ type: "toolCall" as const, id: "c1", name: "bash", arguments: { command } }],
});

/** A runner whose one extension asks before every bash command. */
async function gateRunner() {
  const runner = new ExtensionRunner({ cwd: "/project", includeProject: false });
  await runner.addExtension("gate", (arbor) =>
    arbor.on("tool_call", async (event, ctx) => {
      if (event.toolName !== "bash") return undefined;
      const ok = await ctx.ui.confirm("Run this command?", String(event.input.command));
      return ok === true ? undefined : { block: true, reason: `not allowed (hasUI ${ctx.hasUI})` };
    }),
  );
  return runner;
}

function toolResults(session: Session): string[] {
  return session.getBranch().flatMap((entry) => {
    if (!isEntryOfType(entry, "message") || entry.message.role !== "toolResult") return [];
    const content = entry.message.content as Array<{ type: string; text?: string }>;
    return [content.map((part) => part.text ?? "").join("")];
  });
}

describe("AgentHost: the app's UI for extensions", () => {
  it.each([
    [{ confirm: true }, ["make test"], "ran make test"],
    [{ confirm: false }, [], "not allowed (hasUI true)"],
    [{ dismiss: true }, [], "not allowed (hasUI true)"],
  ] as const)("a scripted answer %j decides the tool call", async (answer, ran, result) => {
    const runner = await gateRunner();
    const ui = new ScriptedExtensionUI([answer]);
    const commands: string[] = [];
    const { options } = scriptedHostOptions([bashCall("make test"), "done"], {
      extensions: runner,
      ui,
      tools: [recordingBash(commands)],
    });
    const host = await AgentHost.open(options);
    await host.prompt("test it").result;
    expect(commands).toEqual(ran);
    expect(toolResults(host.session).join()).toContain(result);
    expect(ui.requests).toMatchObject([
      { kind: "confirm", extensionName: "gate", title: "Run this command?", message: "make test" },
    ]);
    ui.assertDone();
    await host.close();
  });

  it("without a UI the request resolves to no answer at once, and the gate blocks", async () => {
    const runner = await gateRunner();
    const commands: string[] = [];
    const { options } = scriptedHostOptions([bashCall("rm -rf build"), "ok"], {
      extensions: runner,
      tools: [recordingBash(commands)],
    });
    const host = await AgentHost.open(options);
    const result = await host.prompt("clean").result;
    expect(result.success).toBe(true);
    expect(commands).toEqual([]);
    expect(toolResults(host.session).join()).toContain("not allowed (hasUI false)");
    await host.close();
  });
});

describe("AgentHost: session actions for extensions", () => {
  async function withCommand(
    handler: (args: string, ctx: ExtensionCommandContext) => unknown,
    responses: Parameters<typeof scriptedHostOptions>[0] = [],
  ) {
    const runner = new ExtensionRunner({ cwd: "/project", includeProject: false });
    const log: string[] = [];
    await runner.addExtension("steer", (arbor) => {
      arbor.on("session_start", (event) => {
        log.push(`start:${event.reason}`);
      });
      arbor.on("session_shutdown", () => {
        log.push("shutdown");
      });
      arbor.registerCommand("go", {
        description: "",
        handler: (args, ctx) => handler(args, ctx) as never,
      });
    });
    const { options } = scriptedHostOptions(responses, { extensions: runner });
    const host = await AgentHost.open(options);
    return { host, log, runner };
  }

  it("reads the model, the catalogue and the context usage from the host's state", async () => {
    let seen: unknown;
    const { host } = await withCommand(
      (_args, ctx) => {
        seen = {
          model: ctx.model,
          models: ctx.models,
          usage: ctx.getContextUsage(),
          idle: ctx.isIdle(),
        };
      },
      ["hello there"],
    );
    await host.prompt("hi").result;
    await host.runCommand("go");
    const state = host.state();
    expect(seen).toEqual({
      model: {
        provider: state.model.provider,
        id: state.model.id,
        contextWindow: state.model.contextWindow,
      },
      models: [
        {
          provider: state.model.provider,
          id: state.model.id,
          contextWindow: state.model.contextWindow,
        },
      ],
      usage: {
        tokens: state.contextTokens,
        contextWindow: state.model.contextWindow,
        percent: expect.any(Number),
      },
      idle: true,
    });
    expect((seen as { usage: { tokens: number } }).usage.tokens).toBeGreaterThan(0);
    await host.close();
  });

  it("newSession leaves the session through the host (shutdown, then start:new)", async () => {
    let made: { sessionId: string } | undefined;
    let sessionSeen: string | undefined;
    const { host, log } = await withCommand(
      async (_args, ctx) => {
        made = await ctx.newSession();
        sessionSeen = ctx.session.getHeader().id;
      },
      ["first answer"],
    );
    await host.prompt("hi").result;
    const first = host.session.id;
    const { outcome } = await host.runCommand("go");
    expect(outcome).toEqual({ status: "done" });
    expect(made?.sessionId).toBe(host.session.id);
    expect(host.session.id).not.toBe(first);
    expect(sessionSeen).toBe(host.session.id);
    expect(host.session.getEntries().filter((e) => isEntryOfType(e, "message"))).toEqual([]);
    expect(log).toEqual(["start:startup", "shutdown", "start:new"]);
    await host.close();
  });

  it("fork and navigateTree go through the host's own methods", async () => {
    const { host, log } = await withCommand(
      async (args, ctx) => {
        const [action, id] = args.split(" ");
        if (action === "nav") return void (await ctx.navigateTree(id ?? null));
        if (action === "fork") return void (await ctx.fork(id as string));
      },
      ["one", "two"],
    );
    await host.prompt("first").result;
    const firstUser = host.session
      .getBranch()
      .find((e) => isEntryOfType(e, "message") && e.message.role === "user");
    await host.prompt("second").result;
    const leafBefore = host.session.getLeafId();
    await host.runCommand("go", `nav ${firstUser?.id}`);
    expect(host.session.getLeafId()).toBe(firstUser?.id);
    const before = host.session.id;
    await host.runCommand("go", `fork ${leafBefore}`);
    expect(host.session.id).not.toBe(before);
    expect(host.session.getLeafId()).not.toBeNull();
    expect(log).toEqual(["start:startup", "shutdown", "start:fork"]);
    await host.close();
  });

  it("a command's text becomes the next prompt", async () => {
    const { host } = await withCommand(() => "Summarize what we did", ["Here is the summary"]);
    const { outcome, run } = await host.runCommand("go");
    expect(outcome).toEqual({ status: "done", prompt: "Summarize what we did" });
    const result = await run?.result;
    expect(result?.success).toBe(true);
    const users = host.session
      .getBranch()
      .flatMap((e) =>
        isEntryOfType(e, "message") && e.message.role === "user" ? [e.message.content] : [],
      );
    expect(users).toEqual(["Summarize what we did"]);
    await host.close();
  });

  it("compact from a command compacts through the host", async () => {
    const { host, runner } = await withCommand(
      async (_args, ctx) => {
        const outcome = await ctx.compact("keep names");
        ctx.ui.notify(`compact: ${outcome.status}`);
      },
      ["a1", "a2", "summary of the talk"],
    );
    const ui = new ScriptedExtensionUI();
    runner.bindUI(ui);
    await host.prompt("q1").result;
    await host.prompt("q2").result;
    await host.runCommand("go");
    expect(ui.notifications.map((n) => n.message)).toEqual([
      expect.stringMatching(/^compact: (compacted|nothing_to_compact)$/),
    ]);
    await host.close();
  });

  it("waitForIdle resolves once a running prompt ends; abort ends it", async () => {
    const order: string[] = [];
    const { host } = await withCommand(
      async (args, ctx) => {
        if (args === "abort") return ctx.abort();
        order.push(`idle before: ${ctx.isIdle()}`);
        await ctx.waitForIdle();
        order.push(`idle after: ${ctx.isIdle()}`);
      },
      [
        {
          blocks: [{ type: "text", text: "a slow answer that keeps streaming" }],
          chunkSize: 1,
          delayMs: 20,
        },
      ],
    );
    const run = host.prompt("go slowly");
    const waiting = host.runCommand("go");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await host.runCommand("go", "abort");
    await waiting;
    const result = await run.result;
    expect(result.success).toBe(false);
    expect(order).toEqual(["idle before: false", "idle after: true"]);
    await host.close();
  });

  it("after close, extensions' session actions are unbound", async () => {
    let ctxKept: ExtensionCommandContext | undefined;
    const { host } = await withCommand((_args, ctx) => {
      ctxKept = ctx;
    });
    await host.runCommand("go");
    await host.close();
    await expect(ctxKept?.newSession()).rejects.toMatchObject({ code: "action_unavailable" });
  });
});

describe("AgentHost: tool progress", () => {
  it("reports an extension tool's onUpdate to the app", async () => {
    const runner = new ExtensionRunner({ cwd: "/project", includeProject: false });
    await runner.addExtension("dl", (arbor) =>
      arbor.registerTool({
        name: "fetch_all",
        description: "fetches",
        parameters: z.object({}),
        execute: (_args, ctx) => {
          ctx.onUpdate({ content: "1/2" });
          ctx.onUpdate({ content: "2/2" });
          return { content: "fetched" };
        },
      }),
    );
    const { options } = scriptedHostOptions(
      [{ blocks: [{ type: "toolCall", id: "t1", name: "fetch_all", arguments: {} }] }, "ok"],
      { extensions: runner },
    );
    const host = await AgentHost.open(options);
    const seen: string[] = [];
    host.onToolUpdate((update) =>
      seen.push(
        `${update.toolCallId}:${update.content[0]?.type === "text" ? update.content[0].text : ""}`,
      ),
    );
    await host.prompt("fetch").result;
    expect(seen).toEqual(["t1:1/2", "t1:2/2"]);
    await host.close();
  });
});
