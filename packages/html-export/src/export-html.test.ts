import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PI_FIXTURES } from "../test/fixtures.js";
import { generateSession } from "../test/generate-session.js";
import { exportFileToHtml, exportSessionToHtml } from "./export-html.js";
import type { SessionSnapshot } from "./session-snapshot.js";

const hostile: SessionSnapshot = {
  header: { id: "h", timestamp: "2026-01-01T00:00:00.000Z" },
  entries: [
    {
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "2026-01-01T00:00:01.000Z",
      message: {
        role: "user",
        content: "</script><script>window.pwned=1</script><!-- \u2028 <img src=x onerror=alert(1)>",
      },
    },
  ],
  leafId: "a",
  title: "</title><script>window.pwned=2</script>",
};

function extractData(html: string): unknown {
  const match = /<script type="application\/json" id="arbor-session">([\s\S]*?)<\/script>/.exec(
    html,
  );
  return JSON.parse(match?.[1] ?? "null");
}

describe("exportSessionToHtml", () => {
  it("embeds hostile content without letting it end an element", () => {
    const html = exportSessionToHtml(hostile, { now: () => new Date(0) });
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toContain("<!-- ");
    expect(html).toContain(
      "<title>&#60;/title&#62;&#60;script&#62;window.pwned=2&#60;/script&#62;</title>",
    );
    const data = extractData(html) as { entries: SessionSnapshot["entries"]; generatedAt: string };
    expect(data.entries).toEqual(hostile.entries);
    expect(data.generatedAt).toBe("1970-01-01T00:00:00.000Z");
  });

  it("loads nothing from outside the file", () => {
    const html = exportSessionToHtml(hostile);
    expect(html).not.toMatch(/<link\b|<script\s+src|@import|url\(\s*['"]?(https?:)?\/\//i);
    expect(html).toContain("default-src 'none'");
  });

  it("exports 10,000 entries in well under a second", () => {
    const snapshot = generateSession({ entries: 10_000 });
    let html = exportSessionToHtml(snapshot); // warm the asset cache
    // The best of three runs, so one stall on a busy machine cannot fail it.
    const times = [1, 2, 3].map(() => {
      const started = performance.now();
      html = exportSessionToHtml(snapshot);
      return performance.now() - started;
    });
    expect(Math.min(...times)).toBeLessThan(1000);
    expect((extractData(html) as { entries: unknown[] }).entries).toHaveLength(10_000);
  });
});

describe("exportFileToHtml", () => {
  it("exports a pi-written file to the given path", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "arbor-export-")), "s1-000.html");
    expect(await exportFileToHtml(`${PI_FIXTURES}s1-000.jsonl`, out)).toBe(out);
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect((extractData(html) as { entries: unknown[] }).entries.length).toBeGreaterThan(10);
  });
});
