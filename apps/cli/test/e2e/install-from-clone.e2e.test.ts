import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cliVersion } from "../../src/main.js";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";

/** Runs a bash script without blocking the event loop (the fake server answers in this process). */
function bash(script: string, cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile("bash", ["-c", script], { cwd, env, encoding: "utf8" }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

let server: FakeProviderServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startRoutedServer({ prompts: { hello: "hello from the PATH" } });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

/** The shell lines of the root README's "Get arbor on the PATH" section that link and run it. */
async function readmeLinkLines(): Promise<string[]> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const section = readme.split("## Get `arbor` on the PATH")[1]?.split("\n## ")[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block.split("\n").filter((line) => line.startsWith("mkdir") || line.startsWith("arbor"));
}

describe("arbor on the PATH from a clone, as the README says", () => {
  it("links the built entry point into a PATH folder and runs from any directory", async () => {
    const lines = await readmeLinkLines();
    expect(lines).toEqual([
      'mkdir -p ~/.local/bin && ln -sf "$PWD/apps/cli/dist/bin.js" ~/.local/bin/arbor',
      "arbor --version",
    ]);
    // The README's lines as printed, run from the clone with HOME in the sandbox.
    const env = {
      HOME: sandbox.home,
      PATH: `${join(sandbox.home, ".local", "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      OPENAI_BASE_URL: server.openaiBaseURL,
      OPENAI_API_KEY: "test-key",
    };
    const install = await bash(lines.join("\n"), REPO_ROOT, env);
    expect(install.stderr).toBe("");
    expect(install.stdout).toBe(`arbor ${cliVersion()}\n`);
    // Elsewhere, through the link: a prompt against the fake server.
    const run = await bash('arbor -p "hello"', sandbox.project, env);
    expect(run.stdout).toBe("hello from the PATH\n");
    expect(run.code).toBe(0);
  });
});
