import { describe, expect, it } from "vitest";
import { routeRequest } from "./router.js";

const routes = [
  { agent: "reviewer", patterns: [/\breview\b/i, /\bdiff\b/i] },
  { agent: "tester", patterns: [/\btests?\b/i] },
];

describe("routeRequest", () => {
  it("sends a request to the first route that matches", () => {
    expect(routeRequest("Please review this diff and add tests", routes, "general")).toBe(
      "reviewer",
    );
    expect(routeRequest("write tests for parser.ts", routes, "general")).toBe("tester");
  });

  it("falls back when no route matches", () => {
    expect(routeRequest("what time is it?", routes, "general")).toBe("general");
  });
});
