import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashTool } from "../tools/bash-tool.js";
import { commandEnvironment } from "../tools/command-environment.js";
import { type CommandSandbox, probeBubblewrap } from "./bubblewrap-sandbox.js";
import { runWorkspaceCommand } from "./run-workspace-command.js";

let root: string;
let outside: string;
let sandbox: CommandSandbox;
let server: Server;
let port: number;

beforeAll(async () => {
  const probe = await probeBubblewrap();
  // The tests run where bubblewrap works (CI installs it); a missing one fails loudly.
  if (!probe.available) throw new Error(`bubblewrap is needed for these tests: ${probe.reason}`);
  sandbox = { bwrap: probe.bwrap };
  root = await mkdtemp(join(tmpdir(), "arbor-sandbox-"));
  outside = await mkdtemp(join(tmpdir(), "arbor-outside-"));
  server = createServer((socket) => socket.end("hello from the network\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Runs a command in the workspace: sandboxed unless `box` is null. */
const run = (
  command: string,
  box: CommandSandbox | null = sandbox,
  env: Record<string, string> = { PATH: "/usr/local/bin:/usr/bin:/bin" },
) => runWorkspaceCommand(root, command, { ...(box ? { sandbox: box } : {}), env, timeoutS: 60 });

/** A bash command that connects to the local server and prints what it says. */
const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;

describe("bubblewrap sandbox", () => {
  it("lets a command write the workspace, and nothing outside it", async () => {
    const inside = await run("echo made > made.txt && cat made.txt");
    expect(inside).toMatchObject({ exitCode: 0, output: "made\n" });
    expect(await readFile(join(root, "made.txt"), "utf8")).toBe("made\n");

    const escaped = await run(`echo bad > ${outside}/bad.txt`);
    expect(escaped.exitCode).not.toBe(0);
    expect(escaped.output).toMatch(/Read-only file system|Permission denied|No such file/);
    await expect(readFile(join(outside, "bad.txt"), "utf8")).rejects.toThrow();
    const home = await run(`touch ${homedir()}/.arbor-sandbox-probe`);
    expect(home.exitCode).not.toBe(0);
    // Reading the rest of the system still works.
    expect((await run("cat /etc/hostname >/dev/null && echo read")).output).toBe("read\n");
  });

  it("has no network unless allowed", async () => {
    const blocked = await run(connect());
    expect(blocked.exitCode).not.toBe(0);
    expect(blocked.output).not.toContain("hello from the network");
    const allowed = await run(connect(), { ...sandbox, allowNetwork: true });
    expect(allowed).toMatchObject({ exitCode: 0, output: "hello from the network\n" });
    const unsandboxed = await run(connect(), null);
    expect(unsandboxed.output).toBe("hello from the network\n");
  });

  it("strips credential variables from the environment commands get", async () => {
    const env = commandEnvironment({
      PATH: "/usr/bin:/bin",
      OPENAI_API_KEY: "sk-secret",
      GITHUB_TOKEN: "ghp-secret",
      LANG: "C.UTF-8",
    });
    const result = await run("env", sandbox, env);
    expect(result.output).toContain("LANG=C.UTF-8");
    expect(result.output).not.toContain("secret");
  });

  it("stops a sandboxed command on timeout, with everything it started", async () => {
    const result = await runWorkspaceCommand(root, "sleep 300 & sleep 300", {
      sandbox,
      timeoutS: 1,
      killGraceMs: 200,
    });
    expect(result.timedOut).toBe(true);
  });

  it("says when bubblewrap is missing, and the bash tool asks for leaving the sandbox by name", async () => {
    const missing = await probeBubblewrap(join(root, "no-such-bwrap"));
    expect(missing).toEqual({
      available: false,
      reason: expect.stringContaining("was not found (install bubblewrap"),
    });
    const tool = bashTool(root, { env: { PATH: "/usr/bin:/bin" }, sandbox });
    expect(tool.description).toContain("Commands run in a sandbox");
    const inside = await tool.execute(
      { command: `touch ${outside}/inside.txt` },
      { signal: new AbortController().signal, toolCallId: "c1" },
    );
    expect(String(inside)).not.toContain("[exit code 0]");
    const out = await tool.execute(
      { command: `touch ${outside}/outside.txt`, outside_sandbox: true },
      { signal: new AbortController().signal, toolCallId: "c2" },
    );
    expect(String(out)).toContain("[exit code 0]");
  });
});
