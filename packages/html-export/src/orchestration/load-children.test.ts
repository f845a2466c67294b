import { describe, expect, it, vi } from "vitest";
import { childSession, parentSession } from "../../test/orchestration-sessions.js";
import { embedJson } from "../embed-json.js";
import { buildPageData } from "../page-data.js";
import type { SessionSnapshot } from "../session-snapshot.js";
import { exportSessionTreeToHtml, preloadChildSessions } from "./load-children.js";

describe("preloadChildSessions", () => {
  it("loads each child once through an async loader, ends cycles and keeps load errors", async () => {
    const parent = parentSession("P", ["C", "gone", "bad"]);
    const child = childSession("C", "P", ["P", "C", "G"]);
    const grandchild = childSession("G", "C", ["C"]);
    const byId = new Map<string, SessionSnapshot>([
      ["C", child],
      ["G", grandchild],
      ["P", parent],
    ]);
    const loadChild = vi.fn(async (id: string) => {
      if (id === "bad") throw new Error("no such file");
      return byId.get(id);
    });
    const load = await preloadChildSessions(parent, loadChild);
    expect(loadChild.mock.calls.map(([id]) => id)).toEqual(["C", "gone", "bad", "G"]);
    expect(load("C")).toBe(child);
    expect(load("gone")).toBeUndefined();
    expect(() => load("bad")).toThrow("no such file");
  });

  it("stops at the depth limit", async () => {
    const parent = parentSession("P", ["C"]);
    const loadChild = vi.fn(async (id: string) => childSession(id, "x", [`${id}+`]));
    await preloadChildSessions(parent, loadChild, 3);
    expect(loadChild.mock.calls.map(([id]) => id)).toEqual(["C", "C+", "C++"]);
  });
});

describe("exportSessionTreeToHtml limits", () => {
  it("refuses a bad maxDepth before loading anything", async () => {
    const loadChild = vi.fn(async () => undefined);
    await expect(
      exportSessionTreeToHtml(parentSession("P", ["C"]), { loadChild, maxDepth: -2 }),
    ).rejects.toMatchObject({ code: "invalid_child_options", field: "maxDepth" });
    expect(loadChild).not.toHaveBeenCalled();
  });
});

describe("exportSessionTreeToHtml", () => {
  it("writes the page with the children embedded", async () => {
    const parent = parentSession("P", ["C"]);
    const child = childSession("C", "P");
    const now = () => new Date("2026-03-02T00:00:00.000Z");
    const html = await exportSessionTreeToHtml(parent, {
      loadChild: async (id) => (id === "C" ? child : undefined),
      now,
    });
    const data = buildPageData(parent, now, {
      loadChild: (id) => (id === "C" ? child : undefined),
    });
    expect(html).toContain(embedJson(data));
    expect(html).toContain("Result of C");
  });
});
