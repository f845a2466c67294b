import { CHILD_SESSION_CUSTOM_TYPE } from "@arbor/orchestration";
import { MemorySessionStore } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { layoutTree, renderTreeText } from "../tree-lines.js";
import { TreeView } from "./tree-view.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const ESC = "\u001B";

/** A root session of an agent file's run: a request, a destination and a sub-agent child. */
async function rootSession() {
  const session = await new MemorySessionStore().create({ cwd: "/project" });
  await session.appendMessage({ role: "user", content: "upload fails", timestamp: 1 });
  const tech = {
    childSessionId: "tech-1",
    role: "destination",
    agent: "tech",
    agentPath: "desk:tech",
  };
  const reader = { childSessionId: "reader-1", role: "subagent", agent: "r", agentPath: "desk:r" };
  await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, { ...tech, outcome: "running" });
  await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, { ...reader, outcome: "running" });
  await session.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, {
    ...reader,
    outcome: "failed",
    message: "model_error: boom",
    usage: { input: 2, output: 3, cacheRead: 0, cacheWrite: 0 },
    cost: 0,
  });
  // tech never ended: the process died while it ran.
  return session;
}

describe("/tree and an agent file's child runs", () => {
  it("lays out each child entry as a child line naming its session; sessions show prints them", async () => {
    const session = await rootSession();
    const lines = layoutTree(session);
    const children = lines.filter((line) => line.kind === "child");
    expect(children.map((line) => [line.child?.sessionId, line.child?.latest])).toEqual([
      ["tech-1", true],
      ["reader-1", false],
      ["reader-1", true],
    ]);
    const text = renderTreeText(lines);
    expect(text).toContain("child: ↪ routed to desk:tech … running · session tech-1");
    expect(text).toContain(
      "child: ⚙ sub-agent desk:r ✗ failed · 5 tokens: model_error: boom · session reader-1",
    );
    await session.close();
  });

  it("shows each child once (its newest record) by default; Enter on it opens the child session, not the leaf", async () => {
    const session = await rootSession();
    const onSelect = vi.fn();
    const onOpenChild = vi.fn();
    const app = render(
      <TreeView
        lines={layoutTree(session)}
        onSelect={onSelect}
        onCancel={() => {}}
        onOpenChild={onOpenChild}
        missingChildren={new Set(["tech-1"])}
      />,
    );
    await tick();
    const frame = () => app.lastFrame() ?? "";
    expect(frame().match(/desk:r/g)).toHaveLength(1);
    expect(frame()).toContain("child [session file missing]: ↪ routed to desk:tech");
    app.stdin.write("sub-agent");
    await tick();
    expect(frame()).toContain("Enter open the child session");
    app.stdin.write("\r");
    await tick();
    expect(onOpenChild).toHaveBeenCalledWith("reader-1", expect.any(String));
    expect(onSelect).not.toHaveBeenCalled();
    // A message line is still chosen (and then moved to) as before.
    for (let count = 0; count < "sub-agent".length; count++) {
      app.stdin.write("\u007f");
      await tick(5);
    }
    app.stdin.write("upload");
    await tick();
    expect(frame()).toContain("Enter choose");
    app.stdin.write("\r");
    await tick();
    app.stdin.write("\r");
    await tick();
    expect(onSelect).toHaveBeenCalledTimes(1);
    expect(onOpenChild).toHaveBeenCalledTimes(1);
    app.stdin.write(ESC);
    app.unmount();
    await session.close();
  });

  it("applies search text and Enter that arrive in one read: a child opens, a message is chosen", async () => {
    const session = await rootSession();
    const onSelect = vi.fn();
    const onOpenChild = vi.fn();
    const app = render(
      <TreeView
        lines={layoutTree(session)}
        onSelect={onSelect}
        onCancel={() => {}}
        onOpenChild={onOpenChild}
      />,
    );
    await tick();
    app.stdin.write("routed\r");
    await tick();
    expect(onOpenChild).toHaveBeenCalledWith("tech-1", expect.any(String));
    for (let count = 0; count < "routed".length; count++) {
      app.stdin.write("\u007f");
      await tick(5);
    }
    app.stdin.write("upload\r");
    await tick();
    expect(app.lastFrame()).toMatch(/Go to .*\? Enter: go/);
    app.stdin.write("\r");
    await tick();
    expect(onSelect).toHaveBeenCalledTimes(1);
    expect(onOpenChild).toHaveBeenCalledTimes(1);
    app.unmount();
    await session.close();
  });

  it("starts on the leaf among the shown lines, hidden entries before it or a hidden leaf notwithstanding", async () => {
    const line = (id: string, entryType: string, active: boolean, leaf = false) => ({
      id,
      depth: 0,
      prefix: "",
      entryType,
      kind: entryType === "message" ? "user" : "model",
      text: `${id} text`,
      label: undefined,
      active,
      leaf,
    });
    const cases: [ReturnType<typeof line>[], string][] = [
      // A hidden model change before the leaf, another branch after it.
      [
        [
          line("u1", "message", true),
          line("m1", "model_change", true),
          line("a1", "message", true, true),
          line("u2", "message", false),
        ],
        "2/3",
      ],
      // The leaf itself hidden (a bookkeeping entry): the newest shown entry of the path.
      [
        [
          line("u1", "message", true),
          line("a1", "message", true),
          line("m1", "model_change", true, true),
          line("u2", "message", false),
        ],
        "2/3",
      ],
    ];
    for (const [lines, expected] of cases) {
      const app = render(<TreeView lines={lines} onSelect={() => {}} onCancel={() => {}} />);
      await tick();
      expect(app.lastFrame()).toContain(`${expected} ·`);
      app.unmount();
    }
  });

  it("selects the line it is told to when it opens again (coming back from a child)", async () => {
    const session = await rootSession();
    const lines = layoutTree(session);
    // The leaf is the newest entry (the sub-agent's outcome); the destination's line is asked for.
    const tech = lines.find((line) => line.child?.sessionId === "tech-1");
    const app = render(
      <TreeView
        lines={lines}
        onSelect={() => {}}
        onCancel={() => {}}
        onOpenChild={() => {}}
        initialSelectedId={tech?.id}
      />,
    );
    await tick();
    expect(app.lastFrame()).toMatch(/2\/3 ·/);
    app.unmount();
    await session.close();
  });
});
