import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin; `untilListening` sends SIGTERM once it printed where it listens. */
function runBin(
  args: string[],
  env: Record<string, string>,
  untilListening = false,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let asked = false;
    child.stdout.on("data", async (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (untilListening && url && !asked && stdout.includes("authenticate")) {
        asked = true;
        const health = await fetch(`${url}/health`).then((r) => r.json());
        stdout += `\nHEALTH ${JSON.stringify(health)}\n`;
        child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-bin-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe.skipIf(!existsSync(BIN))("arbor-server bin (built)", () => {
  it("prints its options with --help and exits 0", async () => {
    const out = await runBin(["--help"], {});
    expect(out.code).toBe(0);
    expect(out.stdout).toContain("Usage: arbor-server");
    expect(out.stdout).toContain("ARBOR_SERVER_PORT");
  });

  it("refuses a bad config naming the file, the field and the reason, and does not start", async () => {
    const config = join(dir, "server.yaml");
    await writeFile(config, "port: 8080\nlimits:\n  requestTimeoutMs: fast\n");
    const out = await runBin(["--config", config], { ARBOR_HOME: dir });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${config}: limits.requestTimeoutMs: `);
    expect(out.stderr).toMatch(/expected number/);
    expect(out.stdout).not.toContain("listening");
    expect(out.stderr).not.toMatch(/at .*\.js:\d+/);
  });

  it("starts with no config on loopback, prints where and how to authenticate, stops on SIGTERM", async () => {
    const out = await runBin(
      ["--port", "0"],
      { ARBOR_HOME: dir, ARBOR_ADMIN_KEY: "bin-admin-key-0123456789" },
      true,
    );
    expect(out.stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(out.stdout).toContain("Authorization: Bearer <api key>");
    expect(out.stdout).toContain("/v1/admin/tenants");
    expect(out.stdout).toContain('HEALTH {"status":"ok"');
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain("bin-admin-key-0123456789");
  });

  it("keeps API keys hashed in the home", async () => {
    const env = { ARBOR_HOME: dir, ARBOR_ADMIN_KEY: "bin-admin-key-0123456789" };
    const child = spawn(process.execPath, [BIN, "--port", "0"], {
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    const url = await new Promise<string>((resolve) => {
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const found = /listening on (http:\/\/\S+)/.exec(text)?.[1];
        if (found) resolve(found);
      });
    });
    const admin = {
      authorization: `Bearer ${env.ARBOR_ADMIN_KEY}`,
      "content-type": "application/json",
    };
    const tenant = (await (
      await fetch(`${url}/v1/admin/tenants`, {
        method: "POST",
        headers: admin,
        body: '{"name":"a"}',
      })
    ).json()) as { id: string };
    const { key } = (await (
      await fetch(`${url}/v1/admin/tenants/${tenant.id}/keys`, { method: "POST", headers: admin })
    ).json()) as { key: string };
    const ok = await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    const stored = await readFile(join(dir, "server", "api-keys.json"), "utf8");
    expect(stored).not.toContain(key);
    expect(stored).toContain(tenant.id);
    child.kill("SIGTERM");
    await new Promise((r) => child.on("close", r));
  });
});
