import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileApiKeyStore } from "../src/index.js";

const DIST = fileURLToPath(new URL("../dist/index.js", import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-key-race-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

interface Made {
  created: string[];
  revoked: string[];
}

/**
 * A second server process's key store: creates `count` keys, revoking every other one right
 * after the next is made, and prints what it did as JSON.
 */
function keyMaker(path: string, tenantId: string, count: number): Promise<Made> {
  const script = `
    import { FileApiKeyStore } from ${JSON.stringify(DIST)};
    const [path, tenantId, count] = process.argv.slice(1);
    const store = new FileApiKeyStore(path);
    const made = { created: [], revoked: [] };
    for (let i = 0; i < Number(count); i++) {
      const issued = await store.createKey(tenantId, "k" + i);
      made.created.push(issued.key);
      if (i % 2 === 1) {
        if (!(await store.revokeKey(tenantId, issued.record.id))) throw new Error("not revoked");
        made.revoked.push(issued.key);
      }
    }
    process.stdout.write(JSON.stringify(made));
  `;
  const child = spawn(
    process.execPath,
    ["--input-type=module", "-e", script, path, tenantId, String(count)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as Made) : reject(new Error(`exit ${code}`)),
    ),
  );
}

describe("FileApiKeyStore shared by two server processes", () => {
  it("loses no created or revoked key when both change the file at once", async () => {
    const path = join(dir, "server", "api-keys.json");
    const tenant = await new FileApiKeyStore(path).createTenant("acme");
    const [a, b] = await Promise.all([
      keyMaker(path, tenant.id, 60),
      keyMaker(path, tenant.id, 60),
    ]);
    const fresh = new FileApiKeyStore(path);
    expect(await fresh.listKeys(tenant.id)).toHaveLength(120);
    const revoked = new Set([...(a?.revoked ?? []), ...(b?.revoked ?? [])]);
    expect(revoked.size).toBe(60);
    for (const key of [...(a?.created ?? []), ...(b?.created ?? [])]) {
      const owner = await fresh.authenticate(key);
      if (revoked.has(key)) expect(owner).toBeUndefined();
      else expect(owner).toMatchObject({ tenantId: tenant.id });
    }
  }, 120_000);
});
