import { execFileSync } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";

const KEY = "sk-e2e-4f1d9b7c2a";
const SECRET = "OUTSIDE-SECRET-93b1";
const HOSTILE =
  "\u001b]52;c;cm0gLXJmIH4K\u0007 \u001b]0;pwned\u0007 \u001b[2J \u009b31m \u202eevil \b\b\rover";
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/u;

let server: FakeProviderServer;
let sandbox: Sandbox;

beforeAll(async () => {
  server = await startRoutedServer({
    title: "Hardening",
    afterTool: "I could not read those.",
    prompts: {
      "read outside": {
        blocks: [
          { type: "toolCall", id: "c1", name: "read", arguments: { path: "passwd" } },
          { type: "toolCall", id: "c2", name: "read", arguments: { path: "out/secret.txt" } },
          { type: "toolCall", id: "c3", name: "read", arguments: { path: "pipe" } },
          {
            type: "toolCall",
            id: "c4",
            name: "read",
            arguments: { path: "/proc/self/environ" },
          },
        ],
      },
      "say hostile": `hostile answer ${HOSTILE}`,
      "leak key": { error: { kind: "auth_error", message: `invalid api key ${KEY}` } },
    },
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
  await mkdir(join(sandbox.root, "outside"));
  await writeFile(join(sandbox.root, "outside", "secret.txt"), SECRET);
  await symlink("/etc/passwd", join(sandbox.project, "passwd"));
  await symlink(join(sandbox.root, "outside"), join(sandbox.project, "out"));
  execFileSync("mkfifo", [join(sandbox.project, "pipe")]);
});
afterEach(() => sandbox.remove());

const arbor = (args: string[]) =>
  runArbor(args, {
    cwd: sandbox.project,
    env: { ...sandbox.env(server.openaiBaseURL), OPENAI_API_KEY: KEY, ARBOR_SECRET_PROBE: SECRET },
  });

describe("arbor run, hardened", () => {
  it("refuses reads out of the project and of a FIFO without hanging; nothing outside reaches the session file", async () => {
    const result = await arbor(["run", "read outside"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("I could not read those.");
    const [file] = await sandbox.sessionFiles();
    const stored = await readFile(`${file}`, "utf8");
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain("root:x:0:0");
    expect(stored).not.toContain(KEY);
    expect(stored.match(/is outside the working directory/g)).toHaveLength(3);
    expect(stored).toContain("is a named pipe (FIFO), not a regular file");
  });

  it("shows escape sequences in an answer as escapes, on stdout and in --json", async () => {
    const plain = await arbor(["run", "say hostile"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).not.toMatch(RAW_CONTROL);
    expect(plain.stdout).toContain("hostile answer \\x1b]52;c;");
    const json = await arbor(["run", "--json", "say hostile"]);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(json.stdout) as { text: string }).text).toBe(`hostile answer ${HOSTILE}`);
    const list = await arbor(["sessions", "list"]);
    expect(list.stdout).not.toMatch(RAW_CONTROL);
  });

  it("never prints the configured API key, on stderr or in --json", async () => {
    const plain = await arbor(["run", "leak key"]);
    // A rejected key: exit code 4 (see arbor help run).
    expect(plain.code).toBe(4);
    expect(plain.stderr).not.toContain(KEY);
    expect(plain.stderr).toContain("invalid api key [redacted]");
    const json = await arbor(["run", "--json", "leak key"]);
    expect(json.stdout + json.stderr).not.toContain(KEY);
    expect(json.stdout).toContain("[redacted]");
  });
});
