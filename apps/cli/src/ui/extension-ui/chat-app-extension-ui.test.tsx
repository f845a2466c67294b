import { ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ChatApp } from "../chat-app.js";
import { ChatController } from "../chat-controller.js";
import { openTestHost } from "../chat-host.test-util.js";
import { inputReady } from "../ink-input.test-util.js";
import { TerminalExtensionUI } from "./terminal-extension-ui.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

/** The chat app over a host whose extensions talk to the terminal UI, as `arbor` wires it. */
let releaseTool: () => void = () => undefined;

async function setup(responses: readonly ScriptedResponseInput[]) {
  const errors: string[] = [];
  const extensions = new ExtensionRunner({
    cwd: "/project",
    includeProject: false,
    onError: (error) => errors.push(`${error.event}:${error.kind}`),
  });
  await extensions.addExtension("asker", (arbor) => {
    arbor.registerCommand("ask", {
      description: "asks a question",
      handler: async (_args, ctx) => {
        const answer = await ctx.ui.confirm("Ship it?", "the release branch");
        ctx.ui.notify(`answer: ${String(answer)}`);
      },
    });
    arbor.registerMessageRenderer("todo-list", (message) =>
      (message.details as { todos: string[] }).todos.map((todo) => `[ ] ${todo}`),
    );
    arbor.registerMessageRenderer("broken", () => {
      throw new Error("renderer bug");
    });
    arbor.registerCommand("show", {
      description: "sends displayed and hidden messages",
      handler: async () => {
        await arbor.sendMessage({
          customType: "todo-list",
          content: "plain todo text",
          display: true,
          details: { todos: ["write tests", "ship"] },
        });
        await arbor.sendMessage({ customType: "broken", content: "fallback text", display: true });
        await arbor.sendMessage({
          customType: "todo-list",
          content: "secret",
          display: false,
          details: { todos: ["hidden item"] },
        });
      },
    });
    arbor.registerTool({
      name: "crawl",
      description: "crawls",
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        ctx.onUpdate({ content: "page 1 of 2" });
        await new Promise<void>((resolve) => {
          releaseTool = resolve;
        });
        return { content: "crawled" };
      },
    });
    arbor.registerCommand("summarize", {
      description: "returns a prompt",
      handler: () => "Summarize our work so far",
    });
  });
  const model = new ScriptedModel({ responses });
  const { host } = await openTestHost({ model, cwd: "/project", extensions });
  const ui = new TerminalExtensionUI();
  extensions.bindUI(ui);
  const controller = new ChatController({
    host,
    rules: { rules: [], warnings: [] },
    selectModel: () => model,
  });
  const app = render(
    <ChatApp
      controller={controller}
      cwd="/project"
      listSessions={async () => []}
      extensionUI={ui}
      toolUpdates={(listener) => host.onToolUpdate(listener)}
    />,
  );
  await inputReady(app.stdin);
  const frame = () => app.lastFrame() ?? "";
  const type = async (text: string) => {
    app.stdin.write(text);
    await tick();
  };
  return { app, frame, type, host, controller, ui, errors };
}

describe("the chat app shows extensions' dialogs and notifications", () => {
  it("a command's question takes the keyboard; the answer reaches the extension and its notice shows", async () => {
    const { frame, type, ui, controller, host } = await setup([]);
    await type("/ask");
    await type("\r");
    await vi.waitFor(() => expect(frame()).toContain("Ship it?"));
    expect(frame()).toContain("asker asks");
    // The prompt does not take the keys while the dialog is open.
    await type("q");
    await type("y");
    await vi.waitFor(() => expect(frame()).toContain("asker: answer: true"));
    expect(ui.getState().pending).toBeUndefined();
    expect(frame()).not.toContain("Ship it?");
    // Enter on the prompt now sends nothing: the "q" went to the dialog, not the input.
    await type("\r");
    await tick(100);
    expect(host.session.getEntries().filter((entry) => isEntryOfType(entry, "message"))).toEqual(
      [],
    );
    await controller.close();
  });

  it("Esc dismisses the dialog (no answer) without aborting anything", async () => {
    const { frame, type, controller } = await setup([]);
    await type("/ask");
    await type("\r");
    await vi.waitFor(() => expect(frame()).toContain("Ship it?"));
    await type("\u001B");
    await vi.waitFor(() => expect(frame()).toContain("asker: answer: undefined"));
    await controller.close();
  });

  it("a command's returned text is sent as the next prompt", async () => {
    const { frame, type, host, controller } = await setup(["Here is the summary."]);
    await type("/summarize");
    await type("\r");
    await vi.waitFor(() => expect(frame()).toContain("Here is the summary."));
    const users = host.session
      .getBranch()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "user"
          ? [entry.message.content]
          : [],
      );
    expect(users).toEqual(["Summarize our work so far"]);
    await controller.close();
  });

  it("draws custom messages with their extension's renderer; hidden ones stay hidden; a failing renderer falls back to the text", async () => {
    const { frame, type, controller, errors } = await setup([]);
    await type("/show");
    await type("\r");
    await vi.waitFor(() => expect(frame()).toContain("[ ] write tests"));
    expect(frame()).toContain("[ ] ship");
    expect(frame()).not.toContain("plain todo text");
    expect(frame()).toContain("fallback text");
    expect(frame()).not.toContain("hidden item");
    expect(frame()).not.toContain("secret");
    await type("x");
    await type("\u007F");
    expect(errors).toEqual(["renderer:threw"]);
    await controller.close();
  });

  it("shows an extension tool's progress while it runs, and clears it when the answer ends", async () => {
    const { frame, type, controller } = await setup([
      { blocks: [{ type: "toolCall", id: "t1", name: "crawl", arguments: {} }] },
      "All crawled.",
    ]);
    await type("crawl the site");
    await type("\r");
    await vi.waitFor(() => expect(frame()).toContain("⚙ crawl page 1 of 2"));
    releaseTool();
    await vi.waitFor(() => expect(frame()).toContain("All crawled."));
    await vi.waitFor(() => expect(frame()).not.toContain("page 1 of 2"));
    await controller.close();
  });
});
