import { describe, expect, it } from "vitest";
import { MAX_RENDERED_CHARS, renderCustomMessages } from "./custom-message-renderer.js";
import { exportSessionToHtml } from "./export-html.js";
import { buildPageData } from "./page-data.js";
import type { SessionSnapshot, SessionSnapshotEntry } from "./session-snapshot.js";

const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function message(id: string, customType: string, extra: Record<string, unknown> = {}) {
  return {
    type: "custom_message",
    id,
    parentId: null,
    timestamp: t(1),
    customType,
    content: `content of ${id}`,
    display: true,
    details: { items: ["milk"] },
    ...extra,
  } as SessionSnapshotEntry;
}

describe("renderCustomMessages", () => {
  it("renders shown custom messages as text or html, keyed by entry id, with a copy of the message", () => {
    const seen: unknown[] = [];
    const entries = [
      message("a", "todo-list"),
      message("b", "card"),
      message("c", "other"),
      { type: "message", id: "m", parentId: null, timestamp: t(2), message: { role: "user" } },
    ] as SessionSnapshotEntry[];
    const rendered = renderCustomMessages(entries, (m) => {
      seen.push(m);
      (m.details as { items: string[] }).items.push("changed");
      if (m.customType === "todo-list") return { text: "[ ] milk", by: "todo-list.ts" };
      if (m.customType === "card") return { html: "<b>card</b>" };
      return undefined;
    });
    expect(rendered).toEqual({
      a: { text: "[ ] milk", by: "todo-list.ts" },
      b: { html: "<b>card</b>" },
    });
    expect(seen).toHaveLength(3);
    expect(seen[0]).toMatchObject({ entryId: "a", customType: "todo-list", display: true });
    // What the renderer changed is its own copy.
    expect((entries[0] as unknown as { details: { items: string[] } }).details.items).toEqual([
      "milk",
    ]);
  });

  it("never renders display:false messages", () => {
    const calls: string[] = [];
    const rendered = renderCustomMessages([message("h", "todo-list", { display: false })], (m) => {
      calls.push(m.entryId);
      return { text: "leaked" };
    });
    expect(rendered).toEqual({});
    expect(calls).toEqual([]);
  });

  it("falls back to the default view for a renderer that throws or returns a bad shape", () => {
    const outputs: unknown[] = [
      "a bare string",
      ["lines"],
      { text: 7 },
      { html: "<b>x</b>", text: "both" },
      { html: "<b>x</b>", script: "alert(1)" },
      { text: "x", by: 7 },
      { text: "x".repeat(MAX_RENDERED_CHARS + 1) },
      { html: "x".repeat(MAX_RENDERED_CHARS + 1) },
      null,
    ];
    const errors: string[] = [];
    const entries = outputs.map((_, i) => message(`e${i}`, `t${i}`));
    entries.push(message("boom", "boom"));
    const rendered = renderCustomMessages(
      entries,
      (m) => {
        if (m.customType === "boom") throw new Error("renderer bug");
        return outputs[Number(m.customType.slice(1))] as never;
      },
      (id, reason) => errors.push(`${id}: ${reason}`),
    );
    expect(rendered).toEqual({});
    expect(errors).toHaveLength(outputs.length + 1);
    expect(errors.at(-1)).toBe("boom: the renderer threw: renderer bug");
  });

  it("puts the rendered messages in the page data; without a renderer there are none", () => {
    const snapshot: SessionSnapshot = {
      header: { id: "s", timestamp: t(0) },
      leafId: "a",
      entries: [message("a", "todo-list")],
    };
    expect(buildPageData(snapshot).rendered).toEqual({});
    const html = exportSessionToHtml(snapshot, {
      renderCustomMessage: () => ({ html: "</script><script>alert(1)</script>" }),
    });
    // The page data is JSON inside a script element: the markup cannot end it.
    expect(html).not.toContain("</script><script>alert(1)");
    expect(html).toContain("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)");
  });
});
