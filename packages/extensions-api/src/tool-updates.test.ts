import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ToolUpdateEvent } from "./capability-registry.js";
import type { ToolExecutionContext } from "./extension-api.js";
import { ExtensionRunner } from "./runner.js";
import { FakeExtensionHost } from "./test/index.js";

describe("tool progress (onUpdate)", () => {
  it("reaches the caller's onUpdate and every onToolUpdate listener, in order", async () => {
    const runner = new ExtensionRunner({ cwd: "/p" });
    let late: ToolExecutionContext | undefined;
    await runner.addExtension("dl", (arbor) =>
      arbor.registerTool({
        name: "download",
        description: "downloads",
        parameters: z.object({}),
        execute: async (_args, ctx) => {
          ctx.onUpdate({ content: "10%" });
          ctx.onUpdate({ content: [{ type: "text", text: "50%" }], details: { done: 5 } });
          late = ctx;
          return { content: "done" };
        },
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    const direct: ToolUpdateEvent[] = [];
    const listened: ToolUpdateEvent[] = [];
    runner.onToolUpdate((update) => listened.push(update));
    const result = await runner.executeTool(
      "download",
      {},
      { toolCallId: "c1", onUpdate: (update) => direct.push(update) },
    );
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    const expected = [
      {
        toolCallId: "c1",
        toolName: "download",
        extensionName: "dl",
        content: [{ type: "text", text: "10%" }],
      },
      {
        toolCallId: "c1",
        toolName: "download",
        extensionName: "dl",
        content: [{ type: "text", text: "50%" }],
        details: { done: 5 },
      },
    ];
    expect(direct).toEqual(expected);
    expect(listened).toEqual(expected);
    late?.onUpdate({ content: "after the end" });
    expect(listened).toHaveLength(2);
  });

  it.each([
    ["a number", 5],
    ["a content block of an unknown type", { content: [{ type: "video" }] }],
    ["an unknown key", { progress: 0.5 }],
  ])("a malformed update (%s) throws invalid_input into the tool", async (_name, update) => {
    const runner = new ExtensionRunner({ cwd: "/p" });
    await runner.addExtension("bad", (arbor) =>
      arbor.registerTool({
        name: "t",
        description: "",
        parameters: z.object({}),
        execute: (_args, ctx) => {
          ctx.onUpdate(update as never);
          return { content: "unreachable" };
        },
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    const listened: ToolUpdateEvent[] = [];
    runner.onToolUpdate((u) => listened.push(u));
    const result = await runner.executeTool("t", {}, { toolCallId: "c" });
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ text: expect.stringContaining("onUpdate") });
    expect(listened).toEqual([]);
  });

  it("a listener that throws does not fail the tool", async () => {
    const runner = new ExtensionRunner({ cwd: "/p" });
    await runner.addExtension("ok", (arbor) =>
      arbor.registerTool({
        name: "t",
        description: "",
        parameters: z.object({}),
        execute: (_args, ctx) => {
          ctx.onUpdate({ content: "x" });
          return { content: "fine" };
        },
      }),
    );
    runner.bindHost(await FakeExtensionHost.create());
    runner.onToolUpdate(() => {
      throw new Error("ui gone");
    });
    const result = await runner.executeTool(
      "t",
      {},
      {
        toolCallId: "c",
        onUpdate: () => {
          throw new Error("also gone");
        },
      },
    );
    expect(result).toEqual({ content: [{ type: "text", text: "fine" }], isError: false });
  });
});
