import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, LOGGER_RULE, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
let greetingAttempts = 0;

beforeAll(async () => {
  server = await startRoutedServer({
    prompts: {
      "read the notes": {
        blocks: [{ type: "toolCall", name: "read", arguments: { path: "notes.txt" } }],
      },
      "print a greeting": () => {
        greetingAttempts += 1;
        // The first attempt breaks the project's stream rule half way and is retried.
        return greetingAttempts % 2 === 1
          ? {
              blocks: [{ type: "text", text: "Sure: console.log('hi') will do it, and more." }],
              chunkSize: 4,
            }
          : "Sure: logger.info('hi') will do it.";
      },
      "what is the system prompt": "the answer",
    },
    afterTool: "The notes say hello.",
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
  await sandbox.writeProjectFile("notes.txt", "hello from the notes\n");
});
afterEach(() => sandbox.remove());

const arbor = (args: string[], stdin?: string) =>
  runArbor(args, {
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    ...(stdin !== undefined ? { stdin } : {}),
  });

/** The system prompt of the newest request the fake server got. */
function lastSystemPrompt(): string {
  const body = server.requests.at(-1)?.body as {
    messages?: Array<{ role: string; content: unknown }>;
  };
  const system = body.messages?.find((message) => message.role === "system");
  return typeof system?.content === "string"
    ? system.content
    : JSON.stringify(system?.content ?? "");
}

describe("print mode", () => {
  it("answers -p, a bare prompt and a piped prompt on stdout, and stores the session", async () => {
    for (const [args, stdin] of [
      [["-p", "what is the system prompt"], undefined],
      [["what is the system prompt?"], undefined],
      [[], "what is the system prompt"],
    ] as const) {
      const result = await arbor([...args], stdin);
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout).toBe("the answer\n");
    }
    expect(await sandbox.sessionFiles()).toHaveLength(3);
  });

  it("runs a tool call and prints only the final answer in text mode", async () => {
    const result = await arbor(["-p", "read the notes"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("The notes say hello.\n");
  });

  it("never leaves the discarded start of a retried answer on stdout in text mode", async () => {
    await sandbox.writeProjectFile(LOGGER_RULE.path, LOGGER_RULE.text);
    const result = await arbor(["-p", "print a greeting"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("Sure: logger.info('hi') will do it.\n");
    expect(result.stdout).not.toContain("console");
    expect(result.stderr).toContain(
      "[stream rule use-the-logger: answer restarted with a reminder]",
    );
  });

  it("prints one result object with --output-format json", async () => {
    const result = await arbor(["-p", "--output-format", "json", "read the notes"]);
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(output).toMatchObject({ success: true, text: "The notes say hello." });
    expect(typeof output.sessionId).toBe("string");
  });

  it("prints one JSON event per line with --output-format stream-json: the tool call, its result, the retry", async () => {
    await sandbox.writeProjectFile(LOGGER_RULE.path, LOGGER_RULE.text);
    for (const prompt of ["read the notes", "print a greeting"]) {
      const result = await arbor(["-p", "--output-format", "stream-json", prompt]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split("\n");
      const events = lines.map((line) => JSON.parse(line) as { type: string; toolName?: string });
      const types = events.map((event) => event.type);
      expect(types.at(-1)).toBe("result");
      expect(types).toContain("turn_start");
      expect(types).toContain("text_delta");
      if (prompt === "read the notes") {
        expect(events).toContainEqual(
          expect.objectContaining({ type: "tool_result", toolName: "read" }),
        );
      } else {
        expect(types).toContain("ttsr_triggered");
      }
    }
  });

  it("takes --system-prompt, --append-system-prompt, --thinking, --max-turns, -m provider/model and --no-session", {
    timeout: 180_000,
  }, async () => {
    // No title requests: the newest request is the prompt's.
    await sandbox.writeConfig(
      JSON.stringify({ systemPrompt: "From the config.", autoTitle: false }),
    );
    const appended = await arbor([
      "-p",
      "--append-system-prompt",
      "Be brief.",
      "what is the system prompt",
    ]);
    expect(appended.code, appended.stderr).toBe(0);
    expect(lastSystemPrompt()).toContain("From the config.\n\nBe brief.");
    const replaced = await arbor([
      "-p",
      "--system-prompt",
      "Only this.",
      "what is the system prompt",
    ]);
    expect(replaced.code).toBe(0);
    expect(lastSystemPrompt()).toContain("Only this.");
    expect(lastSystemPrompt()).not.toContain("From the config.");

    const model = await arbor(["-p", "-m", "openai/fake-model-7", "what is the system prompt"]);
    expect(model.code).toBe(0);
    expect(server.requests.at(-1)?.body).toMatchObject({ model: "fake-model-7" });
    // A model that reasons is asked for the level.
    const thinking = await arbor([
      "-p",
      "-m",
      "o4-mini",
      "--thinking",
      "high",
      "what is the system prompt",
    ]);
    expect(thinking.code).toBe(0);
    expect(server.requests.at(-1)?.body).toMatchObject({
      model: "o4-mini",
      reasoning_effort: "high",
    });

    const files = (await sandbox.sessionFiles()).length;
    const memory = await arbor(["-p", "--no-session", "what is the system prompt"]);
    expect(memory.code).toBe(0);
    expect(memory.stdout).toBe("the answer\n");
    expect(await sandbox.sessionFiles()).toHaveLength(files);

    const limited = await arbor(["-p", "--max-turns", "1", "read the notes"]);
    expect(limited.stdout).not.toContain("The notes say hello.");
    for (const [flag, value, words] of [
      ["--thinking", "loud", "is not a reasoning level"],
      ["--max-turns", "0", "is not a number of turns"],
      ["--output-format", "xml", "is not an output format"],
    ] as const) {
      const wrong = await arbor(["-p", flag, value, "hi"]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(words);
    }
  });
});
