import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
let outside: string;

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), "arbor-sandbox-outside-"));
  server = await startRoutedServer({
    prompts: {
      "write two files": {
        blocks: [
          {
            type: "toolCall",
            name: "bash",
            arguments: {
              command: `echo made > made.txt; echo bad > ${outside}/bad.txt; echo "key=[$OPENAI_API_KEY]"`,
            },
          },
        ],
      },
    },
    afterTool: "Ran it.",
  });
});
afterAll(async () => {
  await server.close();
  await rm(outside, { recursive: true, force: true });
});
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeConfig(JSON.stringify({ autoTitle: false }));
});
afterEach(() => sandbox.remove());

/** The text of the bash tool's result the model was sent last. */
function lastToolResult(): string {
  const body = server.requests.at(-1)?.body as {
    messages?: Array<{ role: string; content: unknown }>;
  };
  const tool = body.messages?.filter((message) => message.role === "tool").at(-1);
  return typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content);
}

describe("the sandbox approval mode", () => {
  it("runs commands in bubblewrap without asking: the workspace writable, nothing else, no keys", async () => {
    const result = await runArbor(["-p", "--approval", "sandbox", "write two files"], {
      cwd: sandbox.project,
      env: sandbox.env(server.openaiBaseURL),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("Ran it.\n");
    expect(await readFile(join(sandbox.project, "made.txt"), "utf8")).toBe("made\n");
    await expect(readFile(join(outside, "bad.txt"), "utf8")).rejects.toThrow();
    const output = lastToolResult();
    expect(output).toMatch(/Read-only file system|Permission denied|No such file/);
    expect(output).toContain("key=[]");
    expect(result.stderr).not.toContain("unavailable");
  });

  it("without bubblewrap says so once and asks for commands, never running them bare", async () => {
    const result = await runArbor(["-p", "--approval", "sandbox", "write two files"], {
      cwd: sandbox.project,
      env: { ...sandbox.env(server.openaiBaseURL), ARBOR_BWRAP: join(sandbox.root, "no-bwrap") },
    });
    const notices = result.stderr.split("The sandbox approval mode is unavailable").length - 1;
    expect(notices).toBe(1);
    expect(result.stderr).toContain("was not found (install bubblewrap");
    await expect(readFile(join(sandbox.project, "made.txt"), "utf8")).rejects.toThrow();
    expect(lastToolResult()).toContain("needs the user's approval");
  });
});
