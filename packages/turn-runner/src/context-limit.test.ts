import { describe, expect, it } from "vitest";
import { contextLimit, estimateTokens } from "./context-limit.js";

describe("contextLimit", () => {
  it("subtracts the buffer and the reserved output from the window", () => {
    expect(contextLimit({ contextWindow: 128_000, buffer: 2_000, maxOutput: 16_000 })).toBe(
      110_000,
    );
  });

  it("never goes below zero when the reservations exceed the window", () => {
    expect(contextLimit({ contextWindow: 4_000, buffer: 1_000, maxOutput: 8_000 })).toBe(0);
  });
});

describe("estimateTokens", () => {
  it("counts a token per four characters, rounding up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
  });
});
