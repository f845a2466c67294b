import { MemorySessionStore } from "@arbor/session-store";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import { readChildSession } from "./child-session-snapshot.js";
import { ChildSessionView } from "./child-session-view.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a child session opened from /tree", () => {
  it("says why a child session cannot be shown (deleted, damaged) instead of failing; Esc goes back", async () => {
    const store = new MemorySessionStore();
    const missing = await readChildSession((id) => store.open(id, { readOnly: true }), "gone-1");
    expect(missing).toEqual({
      status: "unavailable",
      sessionId: "gone-1",
      reason: "its session file is missing (deleted or moved)",
    });
    const broken = await readChildSession(async () => {
      throw new Error("line 3 is not JSON");
    }, "bad-1");
    expect(broken).toMatchObject({
      status: "unavailable",
      reason: expect.stringContaining("line 3"),
    });
    const onBack = vi.fn();
    const app = render(
      <ChildSessionView
        frames={[{ sessionId: "gone-1", snapshot: missing }]}
        onOpen={() => {}}
        onBack={onBack}
      />,
    );
    await tick();
    expect(app.lastFrame()).toContain(
      "The child session gone-1 cannot be shown: its session file is missing (deleted or moved).",
    );
    app.stdin.write("\u001B");
    await tick();
    expect(onBack).toHaveBeenCalledTimes(1);
    app.unmount();
  });

  it("shows a readable child's transcript and path, leaving the session as it was", async () => {
    const store = new MemorySessionStore();
    const session = await store.create({ cwd: "/project" });
    await session.appendCustomEntry("arbor.orchestration.ancestry", {
      originId: "root",
      parentId: "root",
      agentPath: "desk:tech",
      role: "destination",
      agent: "tech",
      file: "/agents/tech.md",
      originRunId: "r0",
      runId: "r1",
      parentRunId: "r0",
    });
    await session.appendMessage({ role: "user", content: "fix it", timestamp: 1 });
    const before = session.getEntries().length;
    const snapshot = await readChildSession((id) => store.open(id, { readOnly: true }), session.id);
    expect(snapshot).toMatchObject({ status: "open", agentPath: "desk:tech", role: "destination" });
    const app = render(
      <ChildSessionView
        frames={[{ sessionId: session.id, snapshot }]}
        onOpen={() => {}}
        onBack={() => {}}
      />,
    );
    await tick();
    expect(app.lastFrame()).toContain("Child session (read-only) desk:tech");
    expect(app.lastFrame()).toContain("you › fix it");
    app.unmount();
    expect(session.getEntries()).toHaveLength(before);
    await session.close();
  });
});
