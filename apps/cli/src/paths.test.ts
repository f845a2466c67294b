import { describe, expect, it } from "vitest";
import { resolveArborPaths, sessionDirFor } from "./paths.js";

describe("resolveArborPaths", () => {
  it("keeps Arbor's files under HOME/.arbor", () => {
    expect(resolveArborPaths({ HOME: "/home/ada" })).toEqual({
      home: "/home/ada",
      arborDir: "/home/ada/.arbor",
      configFile: "/home/ada/.arbor/config.json",
      sessionsRoot: "/home/ada/.arbor/sessions",
    });
  });

  it("moves them to ARBOR_HOME when it is set, leaving HOME for home stream rules", () => {
    const paths = resolveArborPaths({ HOME: "/home/ada", ARBOR_HOME: "/tmp/arbor-test" });
    expect(paths.home).toBe("/home/ada");
    expect(paths.configFile).toBe("/tmp/arbor-test/config.json");
    expect(sessionDirFor(paths, "/srv/proj")).toBe("/tmp/arbor-test/sessions/--srv-proj--");
  });
});
