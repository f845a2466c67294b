import { describe, expect, it } from "vitest";
import { translateInlineFlags } from "./inline-flags.js";

describe("translateInlineFlags", () => {
  it("moves a leading (?i) group into the flags", () => {
    const { source, flags } = translateInlineFlags("(?i)console\\.log");
    expect({ source, flags }).toEqual({ source: "console\\.log", flags: "i" });
    expect(new RegExp(source, flags).test("CONSOLE.LOG")).toBe(true);
  });

  it("merges several flags with the ones given, without duplicates", () => {
    expect(translateInlineFlags("(?is)a.b", "i")).toEqual({ source: "a.b", flags: "is" });
  });

  it("leaves a pattern without a leading group alone", () => {
    expect(translateInlineFlags("foo(?i)", "g")).toEqual({ source: "foo(?i)", flags: "g" });
  });

  it("names a flag JavaScript cannot express", () => {
    expect(() => translateInlineFlags("(?x)a b")).toThrow(/unsupported inline flag "x"/);
  });
});
