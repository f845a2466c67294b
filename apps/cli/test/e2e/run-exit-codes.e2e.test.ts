import type { FakeProviderServer } from "@arbor/providers/test";
import { openSessionFile } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";

let server: FakeProviderServer;
let sandbox: Sandbox;

const READ_TOOL_CALL = {
  blocks: [{ type: "toolCall" as const, name: "read", arguments: { path: "notes.txt" } }],
};
const SLOW_ANSWER = "one two three four five six seven eight nine ten ".repeat(20);

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "plain question": "a plain answer",
      "bad key": { error: { kind: "auth_error", message: "invalid api key" } },
      "no quota": { error: { kind: "quota_exceeded", message: "insufficient quota" } },
      "broken model": { error: { kind: "model_error", message: "the model crashed" } },
      "keep calling tools": READ_TOOL_CALL,
      "slow answer": {
        blocks: [{ type: "text", text: SLOW_ANSWER }],
        chunkSize: 4,
        delayMs: 50,
      },
      // Anything else (the runner's last-turn instruction too) gets a tool call: listed last.
      "": READ_TOOL_CALL,
    },
    // Every tool result is answered with another tool call: the run never ends by itself.
    afterTool: READ_TOOL_CALL,
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

const arbor = (args: string[], interruptWhen?: (stdout: string) => boolean) =>
  runArbor(args, {
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    ...(interruptWhen ? { interruptWhen } : {}),
  });

describe("arbor run exit codes", () => {
  it("exits 0 when the answer finishes", async () => {
    const result = await arbor(["run", "plain question"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("a plain answer");
  });

  it("exits 4 when the provider rejects the key or the quota is used up", async () => {
    for (const [prompt, detail] of [
      ["bad key", "invalid api key"],
      ["no quota", "insufficient quota"],
    ] as const) {
      const result = await arbor(["run", prompt]);
      expect(result.code, prompt).toBe(4);
      expect(result.stderr).toContain(detail);
    }
  });

  it("exits 3 when the run reaches its turn limit without an answer", async () => {
    const result = await arbor(["run", "--json", "keep calling tools"]);
    const output = JSON.parse(result.stdout) as { success: boolean; reason: string; turns: number };
    expect(output.success).toBe(false);
    expect(output.reason).toBe("max_turns");
    expect(result.code).toBe(3);
  });

  it("exits 1 for other provider failures", async () => {
    const result = await arbor(["run", "broken model"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the model crashed");
  });

  it("exits 130 on SIGINT and keeps the partial answer in the session", async () => {
    const streamed = await arbor(["run", "slow answer"], (stdout) => stdout.length > 8);
    expect(streamed.code).toBe(130);
    expect(streamed.stderr).toContain("aborted");
    const [file] = await sandbox.sessionFiles();
    const session = await openSessionFile(file as string, { readOnly: true });
    expect(session.verify()).toEqual([]);
    const stored = JSON.stringify(session.getEntries());
    expect(stored).toContain('"stopReason":"aborted"');
    // What was streamed before the stop is kept.
    expect(stored).toContain(streamed.stdout.slice(0, 6));
  });
});
