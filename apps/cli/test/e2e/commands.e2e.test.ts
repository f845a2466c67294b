import { copyFile, readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { isEntryOfType, openSessionFile } from "@arbor/session-store";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSandbox, LOGGER_RULE, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { runArbor } from "./run-binary.js";

let server: FakeProviderServer;
let sandbox: Sandbox;
let ruleAttempts = 0;
let secretAttempts = 0;

beforeAll(async () => {
  server = await startRoutedServer({
    title: "Questions and answers",
    prompts: {
      "first question": "answer one",
      "second question": "answer two",
      "bad key": { error: { kind: "auth_error", message: "invalid api key" } },
      "read the secrets": () => {
        secretAttempts += 1;
        return secretAttempts === 1
          ? {
              blocks: [{ type: "toolCall", name: "read", arguments: { path: "secrets.env" } }],
            }
          : "I may not read that file.";
      },
      "print a greeting": () => {
        ruleAttempts += 1;
        return ruleAttempts === 1
          ? { blocks: [{ type: "text", text: "Use console.log('hi') here." }], chunkSize: 4 }
          : "Use logger.info('hi') here.";
      },
    },
  });
});
afterAll(() => server.close());
beforeEach(async () => {
  sandbox = await createSandbox();
});
afterEach(() => sandbox.remove());

const arbor = (args: string[], stdin?: string) =>
  runArbor(args, {
    cwd: sandbox.project,
    env: sandbox.env(server.openaiBaseURL),
    ...(stdin !== undefined ? { stdin } : {}),
  });
const arborWithoutProvider = (args: string[]) =>
  runArbor(args, { cwd: sandbox.project, env: { HOME: sandbox.home } });

/** A pi fixture from the repository's `fixtures/pi-sessions` (made by pi 0.73.1). */
function piFixture(name: string): string {
  return fileURLToPath(new URL(`../../../../fixtures/pi-sessions/${name}`, import.meta.url));
}

describe("arbor demo", () => {
  it("runs offline in under 10 s and leaves a valid session file and an HTML export", async () => {
    const result = await runArborDemo();
    expect(result.code).toBe(0);
    expect(result.durationMs).toBeLessThan(10_000);
    const sessionFile = /Session file: (.+)/.exec(result.stdout)?.[1]?.trim();
    const htmlFile = /HTML export:\s+(.+)/.exec(result.stdout)?.[1]?.trim();
    expect(sessionFile).toBeDefined();
    expect(htmlFile).toBeDefined();
    const session = await openSessionFile(sessionFile as string, { readOnly: true });
    expect(session.verify()).toEqual([]);
    const entries = session.getEntries();
    const types = new Set(entries.map((entry) => entry.type));
    for (const type of ["message", "compaction", "ttsr_injection", "label"])
      expect(types).toContain(type);
    expect(
      entries.some(
        (entry) => isEntryOfType(entry, "message") && entry.message.role === "toolResult",
      ),
    ).toBe(true);
    // A branch: some entry has two children.
    expect(entries.some((entry) => session.getChildren(entry.id).length > 1)).toBe(true);
    const html = await readFile(htmlFile as string, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain(session.id);
    expect(result.stdout).toContain("stream rule");
  });

  async function runArborDemo() {
    return arborWithoutProvider(["demo"]);
  }
});

describe("arbor help and errors", () => {
  it("prints the version and the help of every command", async () => {
    const pkg = JSON.parse(
      await readFile(new URL("../../package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect((await arborWithoutProvider(["--version"])).stdout.trim()).toBe(`arbor ${pkg.version}`);
    for (const command of [[], ["run"], ["sessions"], ["demo"]]) {
      const result = await arborWithoutProvider([...command, "--help"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Usage/);
    }
  });

  it("says how to configure a provider when none is, without a stack trace", async () => {
    const result = await arborWithoutProvider(["run", "hello"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no model provider is configured");
    expect(result.stderr).toContain("OPENAI_API_KEY");
    expect(result.stderr).toContain("arbor demo");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("names a broken config file and what is wrong with it", async () => {
    await sandbox.writeConfig(JSON.stringify({ providers: { local: { api: "carrier-pigeon" } } }));
    const result = await arbor(["run", "first question"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("config.json is not valid");
    expect(result.stderr).toContain("providers.local.api");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("rejects an unknown option and an unknown command with exit code 2", async () => {
    const option = await arborWithoutProvider(["--frobnicate"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("arbor --help");
    const command = await arborWithoutProvider(["frobnicate"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('"frobnicate" is not an arbor command');
  });
});

describe("arbor run", () => {
  it("streams the answer to stdout and exits 0", async () => {
    const result = await arbor(["run", "first question"]);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("answer one\n");
    expect(result.code).toBe(0);
  });

  it("reads the prompt from stdin and prints the result object with --json", async () => {
    const result = await arbor(["run", "--json"], "second question\n");
    expect(result.code).toBe(0);
    const output = JSON.parse(result.stdout) as Record<string, unknown>;
    // The model titles the new session after its first exchange (autoTitle defaults to on).
    expect(output).toMatchObject({
      success: true,
      text: "answer two",
      turns: 1,
      title: "Questions and answers",
    });
    expect(typeof output.sessionFile).toBe("string");
    expect((await stat(output.sessionFile as string)).isFile()).toBe(true);
  });

  it("keeps the title taken from the prompt when autoTitle is off", async () => {
    await sandbox.writeConfig('{ "autoTitle": false }');
    const result = await arbor(["run", "--json", "first question"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ title: "first question" });
  });

  it("continues the latest session with --continue", async () => {
    await arbor(["run", "first question"]);
    const result = await arbor(["run", "--continue", "--json", "second question"]);
    const session = await openSessionFile(
      (JSON.parse(result.stdout) as { sessionFile: string }).sessionFile,
      { readOnly: true },
    );
    expect(session.buildSessionContext().messages).toHaveLength(4);
    expect(await sandbox.sessionFiles()).toHaveLength(1);
  });

  it("fails with exit code 4 and the provider's reason when the key is rejected", async () => {
    const result = await arbor(["run", "bad key"]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("invalid api key");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports a stream-rule interrupt on stderr and streams the retried answer on a new line", async () => {
    ruleAttempts = 0;
    await sandbox.writeProjectFile(LOGGER_RULE.path, LOGGER_RULE.text);
    const result = await arbor(["run", "print a greeting"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("[stream rule use-the-logger: answer restarted with a reminder]\n");
    expect(result.stdout.split("\n").at(-2)).toBe("Use logger.info('hi') here.");
    const session = await sandbox.openLatestSession();
    expect(session.getEntries().some((entry) => isEntryOfType(entry, "ttsr_injection"))).toBe(true);
    const answers = session
      .getBranch()
      .filter((entry) => isEntryOfType(entry, "message") && entry.message.role === "assistant");
    expect(JSON.stringify(answers.at(-1))).toContain("logger.info");
  });

  it("loads the project's extensions: a guard blocks a tool call and the model is told why", async () => {
    secretAttempts = 0;
    await sandbox.writeProjectFile(
      join(".arbor", "extensions", "guard.ts"),
      [
        "type Handler = (event: { toolName: string; input: Record<string, unknown> }) => unknown;",
        "export default function guard(arbor: { on(event: string, handler: Handler): void }) {",
        '  arbor.on("tool_call", (event) =>',
        '    event.toolName === "read" && String(event.input.path).includes("secrets")',
        '      ? { block: true, reason: "Blocked by guard: secrets stay private." }',
        "      : undefined,",
        "  );",
        "}",
      ].join("\n"),
    );
    await sandbox.writeProjectFile("secrets.env", "TOKEN=hunter2\n");
    const result = await arbor(["run", "--trust-project", "read the secrets"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("I may not read that file.\n");
    const session = await sandbox.openLatestSession();
    const toolResult = session
      .getEntries()
      .find((entry) => isEntryOfType(entry, "message") && entry.message.role === "toolResult");
    expect(toolResult).toMatchObject({
      message: {
        toolName: "read",
        isError: true,
        content: [{ type: "text", text: expect.stringContaining("Blocked by guard") }],
      },
    });
    expect(JSON.stringify(session.getEntries())).not.toContain("hunter2");
  });

  it("names an extension that fails to load on stderr and answers without it", async () => {
    await sandbox.writeProjectFile(
      join(".arbor", "extensions", "broken.ts"),
      'throw new Error("boom at load");\nexport default () => {};\n',
    );
    const result = await arbor(["run", "--trust-project", "first question"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("answer one\n");
    expect(result.stderr).toMatch(/^\[extension [^\]]*broken[^\]]*boom at load[^\]]*\]\n$/);
  });

  it("needs a prompt", async () => {
    const result = await arbor(["run"], "");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("arbor run needs a prompt");
  });
});

describe("arbor sessions", () => {
  // Ten runs of the binary: on a machine busy with other tests each can take seconds.
  it("lists, shows, titles, exports and deletes a session", async () => {
    const run = JSON.parse((await arbor(["run", "--json", "first question"])).stdout) as {
      sessionId: string;
    };
    const id = run.sessionId;
    // The list shows the id's shortest unique prefix (8 characters for the only session).
    expect((await arbor(["sessions", "list"])).stdout).toContain(`${id.slice(0, 8)} `);
    const prefix = id.slice(0, 13);
    const titled = await arbor(["sessions", "title", prefix, "Numbers", "talk"]);
    expect(titled.stdout.trim()).toBe("Numbers talk");
    const shown = await arbor(["sessions", "show", id]);
    expect(shown.stdout).toContain("Numbers talk");
    expect(shown.stdout).toContain("assistant: answer one");
    const exported = await arbor(["sessions", "export", id, "out.html"]);
    expect(exported.stdout.trim()).toBe(join(sandbox.project, "out.html"));
    expect(await readFile(join(sandbox.project, "out.html"), "utf8")).toContain("Numbers talk");
    const regenerated = await arbor(["sessions", "regenerate-title", id]);
    expect(regenerated.stdout.trim()).toBe("Questions and answers");
    expect((await arbor(["sessions", "delete", id, "--yes"])).code).toBe(0);
    expect((await arbor(["sessions", "list"])).stdout).not.toContain(id.slice(0, 8));
    const missing = await arbor(["sessions", "show", id]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("arbor sessions list");
  }, 90_000);

  it("opens a session file written by pi by path, for show and to continue it", async () => {
    const copy = join(sandbox.project, "pi-session.jsonl");
    await copyFile(piFixture("s1-001.jsonl"), copy);
    const shown = await arbor(["sessions", "show", copy]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("user:");
    const result = await arbor([
      "run",
      "--session",
      "pi-session.jsonl",
      "--json",
      "first question",
    ]);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { sessionFile: string }).sessionFile).toBe(copy);
    const names = await readdir(sandbox.project);
    expect(names).toContain("pi-session.jsonl");
  });
});
