import { ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { openTestHost, renderChatApp } from "./chat-host.test-util.js";

const lookupTool = defineTool({
  name: "lookup",
  description: "Looks a value up",
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
}) as unknown as AgentTool;

async function setup(
  responses: ScriptedResponseInput[],
  options: {
    extensions?: ExtensionRunner;
    before?: (host: Awaited<ReturnType<typeof openTestHost>>["host"]) => Promise<void>;
  } = {},
) {
  const model = new ScriptedModel({ responses });
  const { host } = await openTestHost({
    model,
    cwd: "/project",
    tools: [lookupTool],
    ...(options.extensions ? { extensions: options.extensions } : {}),
  });
  await options.before?.(host);
  const { app, frame, send } = await renderChatApp(host, () => model);
  return { host, app, frame, send };
}

describe("custom messages in the transcript", () => {
  it("shows the stored messages that ask to be displayed and hides the others", async () => {
    const { host, frame } = await setup([], {
      before: async (opened) => {
        const session = opened.session;
        await session.appendCustomMessageEntry("note", "shown as a string", true);
        await session.appendCustomMessageEntry("note", "hidden as a string", false);
        await session.appendCustomMessageEntry(
          "status",
          [
            { type: "text", text: "shown in blocks" },
            { type: "image", data: "AAAA", mimeType: "image/png" },
          ],
          true,
        );
        await session.appendCustomMessageEntry(
          "status",
          [{ type: "text", text: "hidden in blocks" }],
          false,
          { secret: "details are never shown" },
        );
        await session.appendCustomMessageEntry("evil", "shown \u001b[31mred\u001b[0m text", true);
      },
    });
    await vi.waitFor(() => expect(frame()).toContain("shown in blocks"));
    const shown = frame();
    expect(shown).toContain("[note]");
    expect(shown).toContain("shown as a string");
    expect(shown).toContain("[status]");
    expect(shown).toContain("[image]");
    for (const hidden of ["hidden as a string", "hidden in blocks", "details are never shown"]) {
      expect(shown).not.toContain(hidden);
    }
    // Escape sequences a message quotes are printed, not obeyed.
    expect(shown).not.toContain("\u001b[31mred");
    expect(shown.indexOf("shown as a string")).toBeLessThan(shown.indexOf("shown in blocks"));
    // Nothing stored was lost: the hidden messages are still in the session for the model.
    const stored = JSON.stringify(host.session.getBranch());
    expect(stored).toContain("hidden as a string");
    expect(stored).toContain("hidden in blocks");
  });

  it("shows displayed messages an extension sends during a run, above the answer", async () => {
    const extensions = new ExtensionRunner({ cwd: "/project" });
    await extensions.addExtension("probe", (arbor) => {
      arbor.on("tool_call", async () => {
        await arbor.sendMessage({ customType: "probe", content: "shown live", display: true });
        await arbor.sendMessage({ customType: "probe", content: "hidden live", display: false });
      });
    });
    const { host, frame, send } = await setup(
      [
        { blocks: [{ type: "toolCall", name: "lookup", arguments: { key: "k" } }] },
        "the final answer",
      ],
      { extensions },
    );
    await send("look it up");
    await vi.waitFor(() => expect(frame()).toContain("the final answer"), { timeout: 10_000 });
    await vi.waitFor(() => expect(frame()).toContain("shown live"), { timeout: 10_000 });
    const shown = frame();
    expect(shown).toContain("[probe]");
    expect(shown).not.toContain("hidden live");
    expect(shown.indexOf("shown live")).toBeLessThan(shown.indexOf("the final answer"));
    expect(shown.split("shown live")).toHaveLength(2);
    expect(JSON.stringify(host.session.getBranch())).toContain("hidden live");
  });
});
