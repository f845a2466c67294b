import { describe, expect, it } from "vitest";
import { EXTENSION_EVENT_NAMES, isExtensionEventName } from "./events.js";

describe("isExtensionEventName", () => {
  it("accepts every documented event", () => {
    for (const name of EXTENSION_EVENT_NAMES) expect(isExtensionEventName(name)).toBe(true);
  });

  it("rejects camelCase spellings and unknown names", () => {
    expect(isExtensionEventName("turnStart")).toBe(false);
    expect(isExtensionEventName("turn_begin")).toBe(false);
    expect(isExtensionEventName("")).toBe(false);
  });

  it("lists each name once", () => {
    expect(new Set(EXTENSION_EVENT_NAMES).size).toBe(EXTENSION_EVENT_NAMES.length);
  });
});
