import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readTrustFile, rememberProjectTrust } from "../trust/trust-store.js";
import { readApprovalFile, rememberAllowRule } from "./approval-store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-home-files-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("the home's shared files", () => {
  it("keep every allow rule remembered at once, for one project and several", async () => {
    const file = join(dir, "approvals.json");
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        rememberAllowRule(file, `/project/${i % 3}`, { tool: "bash", command: `npm run t${i}` }),
      ),
    );
    const projects = (await readApprovalFile(file)).projects;
    const rules = Object.values(projects).flatMap((p) => p.allow);
    expect(rules).toHaveLength(30);
    expect((await readdir(dir)).sort()).toEqual(["approvals.json"]);
  });

  it("keep every project trusted at once", async () => {
    const file = join(dir, "trusted-projects.json");
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        rememberProjectTrust(file, `/project/${i}`, {
          trustedAt: new Date(0).toISOString(),
          extensionsDir: `/project/${i}/.arbor/extensions`,
          contentHash: `sha256:${"0".repeat(64)}`,
        }),
      ),
    );
    expect(Object.keys((await readTrustFile(file)).projects)).toHaveLength(30);
    expect((await readdir(dir)).sort()).toEqual(["trusted-projects.json"]);
  });
});
