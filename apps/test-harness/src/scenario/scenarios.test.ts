import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { describe, expect, it } from "vitest";
import { main } from "../cli/main.js";
import { runScenario } from "./run-scenario.js";
import { isAgentScenario, loadScenarios, parseScenario } from "./scenario-file.js";

const SCENARIO_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "scenarios");

const cli = async (
  argv: string[],
  signal = new AbortController().signal,
  onServe?: (s: FakeProviderServer) => void,
) => {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    signal,
    ...(onServe ? { onServe } : {}),
  });
  return { code, stdout, stderr };
};

describe("shipped scenarios", async () => {
  const files = await loadScenarios(SCENARIO_DIR);

  it("include YAML and JSON files", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(new Set(files.map((file) => file.path.split(".").pop()))).toEqual(
      new Set(["yaml", "json"]),
    );
  });

  it("include at least 60 agent scenarios, a third of them through the real adapters", () => {
    const agent = files.map((file) => file.scenario).filter(isAgentScenario);
    expect(agent.length).toBeGreaterThanOrEqual(60);
    const throughAdapters = agent.filter((scenario) =>
      scenario.agent.targets.some((target) => target.provider !== "scripted"),
    );
    expect(throughAdapters.length * 3).toBeGreaterThanOrEqual(agent.length);
    expect(new Set(files.map((file) => file.scenario.name)).size).toBe(files.length);
  });

  // Generous per scenario: the runner's own deadline (20 s a prompt) reports a hang first.
  it.each(files.map((file) => [file.scenario.name, file] as const))(
    "%s",
    async (_name, file) => {
      const result = await runScenario(file.scenario, file.path);
      expect(result.failures).toEqual([]);
      expect(result.passed).toBe(true);
    },
    30_000,
  );
});

describe("scenario format", () => {
  it("names the file and every problem when a scenario is invalid", () => {
    expect(() =>
      parseScenario(
        "name: x\nagent: { provider: bedrock }\nprompts: []\nturns: []\nexpect: {}\n",
        "bad.yaml",
      ),
    ).toThrow(/bad\.yaml: not a valid scenario:[\s\S]*agent\.provider[\s\S]*prompts/);
    expect(() => parseScenario("{", "broken.json")).toThrow(/broken\.json: not valid JSON/);
  });

  it("reports mismatched expectations as failures", async () => {
    const scenario = parseScenario(
      JSON.stringify({
        name: "wrong text",
        agent: { provider: "openai" },
        prompts: ["hi"],
        turns: ["actual"],
        expect: { text: "expected", stopReason: "length" },
      }),
      "x.json",
    );
    const result = await runScenario(scenario);
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual([
      'text: expected "expected", got "actual"',
      'stopReason: expected "length", got "stop"',
    ]);
  });
});

describe("agent scenario format", () => {
  const agentScenario = (expect: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    parseScenario(
      JSON.stringify({
        version: 2,
        name: "agent",
        agent: { targets: [{ provider: "scripted", turns: ["Hello."] }] },
        prompts: ["Hi"],
        expect,
        ...extra,
      }),
      "agent.json",
    );

  it("names every problem of an invalid agent scenario", () => {
    expect(() =>
      parseScenario(
        "version: 2\nname: x\nagent: { targets: [{ provider: bedrock }] }\nprompts: [{ text: hi, actions: [{ action: abort }] }]\nexpect: { tree: { pth: [] } }\n",
        "agent.yaml",
      ),
    ).toThrow(
      /agent\.yaml: not a valid scenario:[\s\S]*agent\.targets\.0\.provider[\s\S]*afterEvents, afterMs or afterToolCalls[\s\S]*expect\.tree/,
    );
  });

  it("reports every unmet expectation on result, tree, events, calls and waits", async () => {
    const result = await runScenario(
      agentScenario({
        result: { success: false, reason: "aborted", turns: 2 },
        tree: { path: ["user"], abortedSiblings: 1, lastAnswerContains: ["Bye"] },
        events: ["agent_end"],
        calls: [2],
        waits: [1000],
      }),
    );
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual([
      "result.success: expected false, got true",
      'result.reason: expected "aborted", got undefined',
      "result.turns: expected 2, got 1",
      'tree.path: expected ["user"], got ["user","assistant"]',
      "tree.abortedSiblings: expected 1, got 0",
      'tree.lastAnswer: expected to contain "Bye", got "Hello."',
      'events: expected ["agent_end"], got ["agent_started","turn_start","agent_update","text_delta","message_end","turn_end","agent_finished","agent_end"]',
      "calls: expected [2], got [1]",
      "waits: expected [1000], got []",
    ]);
  });

  it("fails a scenario that expects an error when none is thrown", async () => {
    const result = await runScenario(agentScenario({ throws: "boom" }));
    expect(result.failures).toEqual(['expected an error containing "boom", none was thrown']);
  });

  it("fails a scenario whose model is called more often than scripted", async () => {
    const result = await runScenario(
      agentScenario({ result: { success: true } }, { prompts: ["One", "Two"] }),
    );
    expect(result.passed).toBe(false);
    expect(result.failures.join("\n")).toMatch(/the run rejected: .*script/i);
  });
});

describe("arbor-harness CLI", () => {
  it("prints help", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/arbor-harness run <file\|dir>/);
  });

  it("runs files of both formats, prints a table and exits 0", async () => {
    // The shipped scenarios all run above; here one file of each format is enough.
    const { code, stdout } = await cli([
      "run",
      join(SCENARIO_DIR, "openai-text-stream.yaml"),
      join(SCENARIO_DIR, "agent", "openai-tool-round-trip.yaml"),
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^RESULT\s+SCENARIO\s+CALLS\s+TIME\s+FILE$/m);
    expect(stdout).toMatch(/^PASS\s+OpenAI adapter streams text/m);
    expect(stdout).toMatch(/^PASS\s+agent runs a tool and answers \(OpenAI adapter\)\s+2\s/m);
    expect(stdout).toMatch(/2 passed, 0 failed/);
  });

  it("exits 1 and lists the failures when a scenario fails", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-scenarios-"));
    try {
      await writeFile(
        join(dir, "fails.yaml"),
        "name: fails on purpose\nagent: { provider: scripted }\nprompts: [hi]\nturns: [hello]\nexpect: { text: bye }\n",
      );
      const { code, stdout } = await cli(["run", dir]);
      expect(code).toBe(1);
      expect(stdout).toMatch(/^FAIL\s+fails on purpose/m);
      expect(stdout).toContain('text: expected "bye", got "hello"');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 on a missing path or an unknown command", async () => {
    expect((await cli(["run", "/nonexistent/arbor"])).code).toBe(2);
    expect((await cli(["frobnicate"])).code).toBe(2);
  });

  it("serves the fake servers until stopped and echoes after the script", async () => {
    const controller = new AbortController();
    let url = "";
    const done = cli(["serve"], controller.signal, (server) => {
      url = server.openaiBaseURL;
    });
    await expect.poll(() => url).not.toBe("");
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "ping" }] }),
    });
    const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe("echo: ping");
    controller.abort();
    const { code, stdout } = await done;
    expect(code).toBe(0);
    expect(stdout).toMatch(/OpenAI: {4}http:\/\/127\.0\.0\.1:\d+\/v1/);
    expect(stdout).toContain("served 1 request(s)");
  });
});
