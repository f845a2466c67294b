import { describe, expect, it } from "vitest";
import { escapeText, mapStrings, restoreText } from "./lossless-text.js";

const awkward = [
  "",
  "plain ascii",
  "\u0000",
  "a\u0000\u0000b",
  "\ud800",
  "\udc00x",
  "x\ud800\ud800",
  "\udc00\ud800",
  "\ud83d\ude00 kept whole",
  "\ue000",
  "\ue0000000",
  "\ue000zzzz",
];

describe("lossless text", () => {
  it("round-trips every awkward string and leaves nothing PostgreSQL refuses", () => {
    for (const text of awkward) {
      const escaped = escapeText(text);
      expect(escaped).not.toContain("\u0000");
      // Well formed: no lone surrogate is left (encodeURIComponent throws on one).
      expect(() => encodeURIComponent(escaped)).not.toThrow();
      expect(restoreText(escaped)).toBe(text);
    }
    expect(escapeText("plain ascii")).toBe("plain ascii");
    expect(escapeText("\ud83d\ude00")).toBe("\ud83d\ude00");
  });

  it("round-trips every single UTF-16 code unit", () => {
    for (let unit = 0; unit <= 0xffff; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      expect(restoreText(escapeText(text))).toBe(text);
    }
  });

  it("maps the strings of nested rows without recursion and without changing the input", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const escaped = mapStrings({ a: deep, n: 1, d: new Date(0) }, escapeText);
    let inner: unknown = escaped.a;
    while (Array.isArray(inner)) inner = inner[0];
    expect(inner).toBe("\ue0000000");
    expect(escaped.d).toEqual(new Date(0));
    let original: unknown = deep;
    while (Array.isArray(original)) original = original[0];
    expect(original).toBe("\u0000");
  });
});
