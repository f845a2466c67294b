import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { customData } from "../../test/orchestration-fixtures.js";
import { CHILD_SESSION_CUSTOM_TYPE, type ChildSessionEntry } from "./child-records.js";
import { INTERRUPTED_CHILD_MESSAGE, recordInterruptedChildren } from "./interrupted-children.js";

const entry = (
  childSessionId: string,
  outcome: ChildSessionEntry["outcome"],
): ChildSessionEntry => ({
  childSessionId,
  role: "subagent",
  agent: childSessionId,
  agentPath: `main:${childSessionId}`,
  outcome,
});

describe("recordInterruptedChildren", () => {
  it("records every child left running as interrupted, at every depth, once", async () => {
    const store = new MemorySessionStore();
    const root = await store.create({ cwd: "/" });
    const child = await store.create({ cwd: "/", parentSession: root.location });
    const grandchild = await store.create({ cwd: "/", parentSession: child.location });
    await root.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, entry("done", "running"));
    await root.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, entry("done", "succeeded"));
    await root.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, entry(child.id, "running"));
    await child.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, entry(grandchild.id, "running"));
    await root.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, { not: "an entry" });
    await child.close();
    await grandchild.close();

    const found = await recordInterruptedChildren(root, { store });
    expect(found).toEqual([child.id, grandchild.id]);
    const recorded = customData(root, CHILD_SESSION_CUSTOM_TYPE) as ChildSessionEntry[];
    expect(recorded.map((data) => `${data.childSessionId}:${data.outcome}`)).toEqual([
      "done:running",
      "done:succeeded",
      `${child.id}:running`,
      "undefined:undefined",
      `${child.id}:interrupted`,
    ]);
    expect(recorded.at(-1)?.message).toBe(INTERRUPTED_CHILD_MESSAGE);
    const reopened = await store.open(child.id);
    expect(
      (customData(reopened, CHILD_SESSION_CUSTOM_TYPE) as ChildSessionEntry[]).map(
        (d) => d.outcome,
      ),
    ).toEqual(["running", "interrupted"]);
    await reopened.close();
    expect(await recordInterruptedChildren(root, { store })).toEqual([]);
  });

  it("a child session that is gone still gets its outcome in the parent", async () => {
    const store = new MemorySessionStore();
    const root = await store.create({ cwd: "/" });
    await root.appendCustomEntry(CHILD_SESSION_CUSTOM_TYPE, entry("deleted", "running"));
    expect(await recordInterruptedChildren(root, { store })).toEqual(["deleted"]);
    expect((customData(root, CHILD_SESSION_CUSTOM_TYPE).at(-1) as ChildSessionEntry).outcome).toBe(
      "interrupted",
    );
  });
});
