import { ExtensionRunner } from "@arbor/extensions-api";
import type { Model } from "@arbor/providers";
import {
  SCRIPTED_MODEL_INFO,
  ScriptedModel,
  type ScriptedResponseInput,
} from "@arbor/providers/test";
import { isEntryOfType, type SessionInfo } from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { ChatApp } from "./chat-app.js";
import { ChatController } from "./chat-controller.js";
import { openTestHost } from "./chat-host.test-util.js";
import { inputReady } from "./ink-input.test-util.js";

const lookupTool = defineTool({
  name: "lookup",
  description: "Looks a value up",
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
}) as unknown as AgentTool;

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const ESC = "\u001B";

async function setup(
  responses: ScriptedResponseInput[],
  options: {
    rules?: { name: string; content: string; condition: string }[];
    extensions?: ExtensionRunner;
    sessions?: { list: () => Promise<SessionInfo[]> };
  } = {},
) {
  const model = new ScriptedModel({ responses });
  const other = new ScriptedModel({
    responses: ["from the other model"],
    info: { ...SCRIPTED_MODEL_INFO, id: "other-model" },
  });
  const rules = (options.rules ?? []).map((rule) => ({
    ...rule,
    path: "",
    enabled: true,
    condition: [rule.condition],
  }));
  const { host, store } = await openTestHost({
    model,
    cwd: "/project",
    tools: [lookupTool],
    rules,
    ...(options.extensions ? { extensions: options.extensions } : {}),
  });
  const session = host.session;
  const controller = new ChatController({
    host,
    rules: { rules, warnings: [] },
    selectModel: (spec): Model => (spec === "other" ? other : model),
  });
  const app = render(
    <ChatApp
      controller={controller}
      cwd="/project"
      listSessions={options.sessions?.list ?? (async () => [])}
    />,
  );
  await inputReady(app.stdin);
  const send = async (text: string) => {
    app.stdin.write(text);
    await tick();
    app.stdin.write("\r");
  };
  const frame = () => app.lastFrame() ?? "";
  const waitForFrame = (text: string) =>
    vi.waitFor(() => expect(frame()).toContain(text), { timeout: 10_000 });
  return { session, store, model, other, controller, app, send, frame, waitForFrame };
}

describe("ChatApp", () => {
  it("streams an answer with its thinking and tool calls shown compactly, and a footer", async () => {
    const { send, waitForFrame, frame } = await setup([
      { blocks: [{ type: "toolCall", name: "lookup", arguments: { key: "answer" } }] },
      {
        blocks: [
          { type: "thinking", thinking: "Considering the question" },
          { type: "text", text: "The answer is 42." },
        ],
      },
    ]);
    await send("What is the answer?");
    await waitForFrame("The answer is 42.");
    expect(frame()).toContain("you › What is the answer?");
    expect(frame()).toContain("thinking: Considering the question");
    expect(frame()).toContain("⚙ lookup ✓");
    expect(frame()).toMatch(
      /arbor\/scripted · thinking off · ↑20 ↓10 · \$0\.0000 · ctx \d+\/128k \(0%\) · What is the answer\?/,
    );
  });

  it("shows a spinner while the model has not answered yet", async () => {
    const { send, waitForFrame } = await setup([
      { blocks: [{ type: "text", text: "late" }], delayMs: 300 },
    ]);
    await send("hi");
    await waitForFrame("waiting for the model");
    await waitForFrame("late");
  });

  it("keeps the partial answer marked aborted when Esc is pressed", async () => {
    const { send, app, waitForFrame, session } = await setup([
      {
        blocks: [{ type: "text", text: "one two three four five six seven eight" }],
        chunkSize: 4,
        delayMs: 40,
      },
    ]);
    await send("count");
    await waitForFrame("one");
    app.stdin.write(ESC);
    await waitForFrame("[aborted]");
    const last = session.getBranch().at(-1);
    expect(
      last &&
        isEntryOfType(last, "message") &&
        (last.message as { stopReason?: string }).stopReason,
    ).toBe("aborted");
  });

  it("shows a stream-rule interrupt as a short notice and then the retried answer", async () => {
    const { send, waitForFrame, frame } = await setup(
      [
        { blocks: [{ type: "text", text: "use console.log here" }], chunkSize: 3 },
        "use the logger here",
      ],
      { rules: [{ name: "no-console", content: "Use the logger.", condition: "console\\.log" }] },
    );
    await send("how do I log?");
    await waitForFrame("use the logger here");
    expect(frame()).toContain("Stream rule no-console matched");
    expect(frame()).not.toContain("console.log here");
    expect(frame()).not.toMatch(/error/i);
  });

  it("runs /title, /label, /thinking, /model and /help", async () => {
    const { send, waitForFrame, frame, session } = await setup(["first answer", "second answer"]);
    await send("question");
    await waitForFrame("first answer");
    await send("/title My talk");
    await waitForFrame("Title: My talk");
    expect(session.getTitle()).toBe("My talk");
    await send("/label keep");
    await waitForFrame('"keep"');
    const answer = session
      .getBranch()
      .filter((entry) => isEntryOfType(entry, "message"))
      .at(-1);
    expect(answer && session.getLabel(answer.id)).toBe("keep");
    await send("/thinking high");
    await waitForFrame("Thinking: high");
    expect(session.getBranch().some((entry) => isEntryOfType(entry, "thinking_level_change"))).toBe(
      true,
    );
    await send("/thinking loud");
    await waitForFrame('"loud" is not a thinking level');
    await send("/model other");
    await waitForFrame("Model: arbor/other-model");
    expect(session.getBranch().some((entry) => isEntryOfType(entry, "model_change"))).toBe(true);
    await send("/help");
    await waitForFrame("/compact [instructions]");
    expect(frame()).toContain("Esc aborts");
  });

  it("uses the model chosen with /model for the next prompt", async () => {
    const { send, waitForFrame, other } = await setup(["unused"]);
    await send("/model other");
    await tick(60);
    await send("hello");
    await waitForFrame("from the other model");
    expect(other.requests).toHaveLength(1);
  });

  it("says so for an unknown command and runs commands extensions register", async () => {
    const extensions = new ExtensionRunner({ cwd: "/project" });
    const seen: string[] = [];
    await extensions.addExtension("greeter", (arbor) => {
      arbor.registerCommand("greet", {
        description: "Greets someone",
        handler: async (args) => {
          seen.push(args);
        },
      });
    });
    const { send, waitForFrame } = await setup([], { extensions });
    await send("/nonsense");
    await waitForFrame("There is no command /nonsense");
    await send("/help");
    await waitForFrame("Greets someone (greeter)");
    await send("/greet Ada");
    await vi.waitFor(() => expect(seen).toEqual(["Ada"]));
  });

  it("asks for a second Ctrl+C before quitting", async () => {
    const { app, waitForFrame } = await setup([]);
    app.stdin.write("\u0003");
    await waitForFrame("Press Ctrl+C again to quit.");
  });

  it("/tree moves the leaf to an earlier answer and can summarize the branch it leaves", async () => {
    const { send, app, waitForFrame, session } = await setup([
      "answer one",
      "answer two",
      { blocks: [{ type: "text", text: "Tried a second question." }] },
    ]);
    await send("question one");
    await waitForFrame("answer one");
    await send("question two");
    await waitForFrame("answer two");
    const answerOne = session
      .getBranch()
      .find((entry) => JSON.stringify(entry).includes("answer one"));
    await send("/tree");
    await waitForFrame("Esc close");
    app.stdin.write("answer one");
    await waitForFrame("search: answer one");
    app.stdin.write("\r");
    await waitForFrame("Enter: go");
    app.stdin.write("s");
    await vi.waitFor(() =>
      expect(session.getBranch().some((entry) => isEntryOfType(entry, "branch_summary"))).toBe(
        true,
      ),
    );
    const path = session.getBranch();
    const summary = path.at(-1);
    expect(summary && isEntryOfType(summary, "branch_summary") && summary.summary).toContain(
      "Tried a second question.",
    );
    expect(summary?.parentId).toBe(answerOne?.id);
    await waitForFrame("Branch summary: Tried a second question.");
    expect(JSON.stringify(path)).not.toContain("answer two");
  });

  it("/sessions resumes another session", async () => {
    const listed: SessionInfo[] = [];
    const { send, app, waitForFrame, controller, store } = await setup([], {
      sessions: { list: async () => listed },
    });
    const other = await store.create({ cwd: "/project" });
    await other.appendMessage({ role: "user", content: "an older talk", timestamp: 1 });
    await other.close();
    const info: SessionInfo = {
      id: other.id,
      path: other.id,
      title: "An older talk",
      name: undefined,
      cwd: "/project",
      created: new Date(0),
      modified: new Date(0),
      messageCount: 1,
      firstUserMessage: "an older talk",
      parentSession: undefined,
    };
    listed.push(info);
    await send("/sessions");
    await waitForFrame("Esc close");
    await waitForFrame("An older talk");
    app.stdin.write("\r");
    await waitForFrame("you › an older talk");
    expect(controller.currentSession.id).toBe(other.id);
  });

  it("/tree on a user message moves to before it and puts its text back in the input", async () => {
    const { send, app, waitForFrame, frame, session } = await setup(["answer one", "answer two"]);
    await send("question one");
    await waitForFrame("answer one");
    await send("question two");
    await waitForFrame("answer two");
    const answerOne = session
      .getBranch()
      .find((entry) => JSON.stringify(entry).includes("answer one"));
    await send("/tree");
    await waitForFrame("Esc close");
    app.stdin.write("question two");
    await waitForFrame("search: question two");
    app.stdin.write("\r");
    await waitForFrame("Enter: go");
    app.stdin.write("\r");
    const patiently = { timeout: 10_000 };
    await vi.waitFor(() => expect(session.getLeafId()).toBe(answerOne?.id), patiently);
    await vi.waitFor(() => expect(frame()).toMatch(/^› question two/m), patiently);
    await vi.waitFor(() => expect(frame()).not.toContain("answer two"), patiently);
  });
});
