import { AgentHost, type AgentNode, defineAgent } from "@arbor/orchestration";
import type { Model } from "@arbor/providers";
import { ScriptedModel, type ScriptedResponseInput } from "@arbor/providers/test";
import { MemorySessionStore } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChatApp } from "./chat-app.js";
import { ChatController } from "./chat-controller.js";
import { inputReady } from "./ink-input.test-util.js";

// The interactive app on an agent tree given in code: the root `desk` calls its sub-agent
// `reader` (tool agent__reader) and answers; each agent's model is scripted by its name.

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const ESC = "\u001B";

const node = (
  name: string,
  agents: AgentNode[] = [],
  destinations: AgentNode[] = [],
): AgentNode => ({
  definition: defineAgent({ name, models: [{ provider: name }] }),
  file: "<inline>",
  advisors: [],
  destinations,
  handoff: undefined,
  agents,
});

const callReader: ScriptedResponseInput = {
  blocks: [{ type: "toolCall", id: "c1", name: "agent__reader", arguments: { prompt: "look" } }],
};

async function openApp(
  scripts: Record<string, ScriptedResponseInput[]>,
  tree: AgentNode = node("desk", [node("reader")]),
) {
  const models = new Map<string, Model>(
    Object.entries(scripts).map(([name, responses]) => [name, new ScriptedModel({ responses })]),
  );
  const modelOf = (target: { provider: string }) => {
    const model = models.get(target.provider);
    if (!model) throw new Error(`no script for ${target.provider}`);
    return model;
  };
  const store = new MemorySessionStore();
  // The host runs the tree whole: the app drives it as it drives any agent.
  const host = await AgentHost.open({
    store,
    create: { cwd: "/project" },
    agent: tree,
    models: modelOf,
    agentOptions: { generateTitle: false },
  });
  const controller = new ChatController({
    host,
    rules: { rules: [], warnings: [] },
    selectModel: () => modelOf({ provider: "desk" }),
    agentFile: "/project/agents/desk.md",
    openSession: (id) => store.open(id, { readOnly: true }),
  });
  const app = render(
    <ChatApp controller={controller} cwd="/project" listSessions={async () => []} />,
  );
  await inputReady(app.stdin);
  const frame = () => app.lastFrame() ?? "";
  const type = async (text: string) => {
    app.stdin.write(text);
    await tick();
    app.stdin.write("\r");
    await tick();
  };
  cleanups.push(async () => {
    app.unmount();
    await controller.close();
  });
  return { app, frame, type, controller, host, store };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe("the interactive app on an agent file", () => {
  it("runs each prompt on the agent tree: the sub-agent call shows as a row, the answer under its agent's name", async () => {
    const { frame, type, host } = await openApp({
      desk: [callReader, "The reader found it."],
      reader: ["reader says: line 42"],
    });
    await type("why does it fail?");
    await vi.waitFor(() => expect(frame()).toContain("The reader found it."), { timeout: 10_000 });
    expect(frame()).toMatch(/⚙ sub-agent desk:reader ✓ succeeded · \d+ tokens/);
    expect(frame()).toContain("desk ›");
    expect(frame()).toContain("agent desk.md");
    // The root answered in the app's own session, which the run was lent and gave back.
    const entries = host.session.getEntries();
    expect(entries.some((entry) => entry.type === "custom")).toBe(true);
    expect(host.session.getBranch().at(-1)?.type).toBe("message");
  });

  it("shows a destination's answer under its row when the transcript is read back from the session", async () => {
    const routeToTech: ScriptedResponseInput = {
      blocks: [
        { type: "toolCall", id: "r1", name: "router__handoff-to", arguments: { agent: "tech" } },
      ],
    };
    const { frame, type, controller } = await openApp(
      { desk: [routeToTech], tech: ["Restart the proxy."] },
      node("desk", [], [node("tech")]),
    );
    await type("it fails");
    await vi.waitFor(() => expect(frame()).toContain("Restart the proxy."), { timeout: 10_000 });
    expect(frame()).toContain("Answered by desk:tech.");
    // The router's hand-off call is done once the destination starts, not left running.
    expect(frame()).toContain("⚙ router__handoff-to ✓");
    // The root session holds the router's turn and the child's row; the answer is the child's.
    controller.reload();
    const rows = controller.getState().items.filter((item) => item.kind !== "notice");
    expect(rows.map((item) => item.kind)).toEqual(["user", "assistant", "child"]);
    expect(JSON.stringify(rows)).not.toContain("Restart the proxy.");
    // Read back, the transcript has no notices of the run; the answer comes from the child.
    await vi.waitFor(() => expect(frame()).not.toContain("Answered by"));
    await vi.waitFor(() =>
      expect(frame()).toMatch(
        /↪ routed to desk:tech ✓ succeeded[^\n]*\n\s*desk:tech ›\s*\n\s*Restart the proxy\./,
      ),
    );
  });

  it("shows advisors consulted (one failing, the run going on without it) and the handoff taking over", async () => {
    const failing: ScriptedResponseInput = {
      blocks: [],
      error: { kind: "model_error", message: "the advisor's model is down", status: 501 },
    };
    const tree: AgentNode = {
      ...node("desk"),
      advisors: [node("skeptic"), node("broken")],
      handoff: node("tone"),
    };
    const { frame, type, host } = await openApp(
      {
        desk: ["Draft answer."],
        skeptic: ["Check the proxy first."],
        broken: [failing, failing, failing, failing, failing],
        tone: ["Kind answer."],
      },
      tree,
    );
    await type("help me");
    await vi.waitFor(() => expect(frame()).toContain("Kind answer."), { timeout: 10_000 });
    expect(frame()).toMatch(/◆ advisor desk:skeptic ✓ succeeded · \d+ tokens/);
    expect(frame()).toMatch(/◆ advisor desk:broken ✗ failed[^\n]*the advisor's model is\s+down/);
    expect(frame()).toMatch(/⇢ handoff to desk:tone ✓ succeeded/);
    expect(frame()).toContain("Answered by desk:tone.");
    // The advisors come before the main agent's answer, the handoff after it.
    const shown = frame();
    expect(shown.indexOf("◆ advisor desk:skeptic")).toBeLessThan(shown.indexOf("Draft answer."));
    expect(shown.indexOf("Draft answer.")).toBeLessThan(shown.indexOf("⇢ handoff to desk:tone"));
    // The main agent got the skeptic's advice and the broken advisor's failure as tagged blocks.
    const prompt = JSON.stringify(
      host.session.getBranch().find((entry) => entry.type === "message"),
    );
    expect(prompt).toContain("Check the proxy first.");
    expect(prompt).toContain("The advisor broken failed");
  });

  it("opens the sub-agent's session read-only from /tree and goes back with Esc", async () => {
    const { frame, type, app } = await openApp({
      desk: [callReader, "done"],
      reader: ["reader says: line 42"],
    });
    await type("go");
    await vi.waitFor(() => expect(frame()).toContain("done"), { timeout: 10_000 });
    await type("/tree");
    // The key hints show once the tree listens for keys.
    await vi.waitFor(() => expect(frame()).toContain("Esc close"));
    app.stdin.write("sub-agent");
    await tick();
    app.stdin.write("\r");
    await vi.waitFor(() => expect(frame()).toContain("Child session (read-only) desk:reader"));
    await vi.waitFor(() => expect(frame()).toContain("you › look"));
    expect(frame()).toContain("reader says: line 42");
    expect(frame()).toContain("Esc back to /tree");
    app.stdin.write(ESC);
    await vi.waitFor(() => expect(frame()).not.toContain("Child session"));
    // Back in /tree, on the line the child was opened from.
    await vi.waitFor(() => expect(frame()).toMatch(/3\/5 · [\s\S]*Enter open the child/));
    app.stdin.write(ESC);
    await vi.waitFor(() => expect(frame()).not.toContain("Session tree"));
  });

  it("Esc during a sub-agent call aborts every agent of the run; the child's row and session say so", async () => {
    const { frame, type, app, host, store } = await openApp({
      desk: [callReader, "never sent"],
      reader: [
        { blocks: [{ type: "text", text: "slow ".repeat(200) }], chunkSize: 2, delayMs: 20 },
      ],
    });
    await type("go");
    await vi.waitFor(() => expect(frame()).toContain("⚙ sub-agent desk:reader … running"), {
      timeout: 10_000,
    });
    // Moving the leaf while the run works in the session is refused, not half done.
    await type("/fork");
    await vi.waitFor(() => expect(frame()).toContain("cannot fork while the agent file's run"));
    app.stdin.write(ESC);
    await vi.waitFor(() => expect(frame()).toMatch(/⚙ sub-agent desk:reader ✗ aborted/), {
      timeout: 10_000,
    });
    await vi.waitFor(() => expect(frame()).toContain("/help for commands"));
    const child = host.session
      .getEntries()
      .flatMap((entry) =>
        entry.type === "custom" ? [(entry as { data?: { childSessionId?: string } }).data] : [],
      )
      .find((data) => data?.childSessionId !== undefined);
    const stored = await store.open(child?.childSessionId as string, { readOnly: true });
    const answer = stored.getBranch().at(-1) as { message?: { stopReason?: string } };
    expect(answer.message?.stopReason).toBe("aborted");
    await stored.close();
  });
});
