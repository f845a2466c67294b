import { describe, expect, it } from "vitest";
import { classifyHttpStatus } from "./error-kind.js";

describe("classifyHttpStatus", () => {
  it.each([
    [401, "auth_error"],
    [403, "auth_error"],
    [429, "rate_limit"],
    [402, "quota_exceeded"],
    [500, "model_error"],
    [529, "model_error"],
    [400, "invalid_response"],
  ])("maps %i to %s", (status, kind) => {
    expect(classifyHttpStatus(status)).toBe(kind);
  });
});
