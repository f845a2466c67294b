import { describe, expect, it } from "vitest";
import { embedJson } from "./embed-json.js";

describe("embedJson", () => {
  it("cannot close the script element it is embedded in", () => {
    const hostile = { text: "</script><script>alert(1)</script><!--" };
    const out = embedJson(hostile);
    expect(out).not.toMatch(/<\/?script/i);
    expect(out).not.toContain("<!--");
    expect(JSON.parse(out)).toEqual(hostile);
  });

  it("escapes line and paragraph separators and keeps other text intact", () => {
    const data = { text: "a\u2028b\u2029c — ünïcödé 🌳 & more" };
    const out = embedJson(data);
    expect(out).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(out)).toEqual(data);
  });
});
