import { describe, expect, it } from "vitest";
import { childRunText } from "./child-run-text.js";

describe("childRunText", () => {
  it("describes a known role and outcome with their marks", () => {
    expect(
      childRunText({ role: "subagent", agentPath: "main:tech", outcome: "succeeded", tokens: 52 }),
    ).toBe("⚙ sub-agent main:tech ✓ succeeded · 52 tokens");
  });

  it("shows a word a newer writer added as written, inherited names included", () => {
    expect(childRunText({ role: "critic", agentPath: "main:c", outcome: "paused" })).toBe(
      "• critic main:c paused",
    );
    expect(childRunText({ role: "constructor", agentPath: "a", outcome: "toString" })).toBe(
      "• constructor a toString",
    );
  });
});
