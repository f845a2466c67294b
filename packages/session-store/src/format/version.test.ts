import { describe, expect, it } from "vitest";
import { CURRENT_SESSION_VERSION } from "./version.js";

describe("CURRENT_SESSION_VERSION", () => {
  it("is pi's v3 format", () => {
    expect(CURRENT_SESSION_VERSION).toBe(3);
  });
});
