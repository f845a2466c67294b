import { execFile } from "node:child_process";
import { chmod, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FakeProviderServer } from "@arbor/providers/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HELP_TEXT } from "../../src/help-text.js";
import { createSandbox, type Sandbox } from "./e2e-fixture.js";
import { startRoutedServer } from "./routed-fake-server.js";
import { ARBOR_BIN } from "./tmux-terminal.js";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * Commands the README and `--help` show, as printed: the lines of `sh` blocks and the
 * inline code that starts with `arbor` (or pipes into it), and the synopsis lines of help.
 */
async function documentedCommands(): Promise<string[]> {
  const found = new Set<string>();
  let inShell = false;
  for (const line of (await readFile(README, "utf8")).split("\n")) {
    if (line.startsWith("```")) {
      inShell = line.trim() === "```sh";
      continue;
    }
    if (inShell) {
      const command = line.replace(/\s+#.*$/, "").trim();
      if (/\barbor\b|bin\.js/.test(command)) found.add(command);
      continue;
    }
    for (const match of line.matchAll(/`([^`]*\barbor\b[^`]*)`/g)) {
      const code = (match[1] as string).replaceAll("\\|", "|");
      if (/^(arbor|echo|git|cat) /.test(code) || code === "arbor") found.add(code);
    }
  }
  for (const text of Object.values(HELP_TEXT)) {
    for (const line of text.split("\n")) {
      const synopsis = /^ {2}((?:echo "prompt" \| )?arbor\b.*?)(?: {2,}.*)?$/.exec(line)?.[1];
      if (synopsis) found.add(synopsis.trim());
    }
  }
  return [...found];
}

/** Examples not run here, and where they are tested instead. */
const NOT_RUN: [RegExp, string][] = [
  [
    /^arbor( \[options\])?$|^arbor -r$|^arbor -c$/,
    "interactive: tested in tmux (interactive, session-picker)",
  ],
  [/^pnpm |^export /, "setup steps of the shell, not arbor"],
  [
    /^npm install -g @arbor\/cli$/,
    "installs from the registry: tests/install publishes and installs it",
  ],
  [/…/, "an elided path"],
  [/^arbor\.approval$/, "a session entry's name, not a command"],
  [/^arbor -c -p$/, "needs a killed session: signals.e2e"],
  [/import/, "needs another tool's session files: commands.e2e"],
  [/--agent/, "needs an agent file: run-agent tests"],
  [/^arbor acp\b/, "serves ACP until the editor closes stdin: test/acp"],
  [/^arbor (rewind|fork)\b/, "moves the session's leaf or needs an entry: checkpoints.e2e"],
  [/sessions delete <id>( \[--yes\])?$/, "asks on a terminal: sessions-list-delete tests"],
  [/^arbor sessions <command>$|^arbor help <command>$|--format f$/, "placeholders for a word"],
];

/** The example with its placeholders filled and optional parts dropped. */
function runnable(example: string, sessionId: string): string {
  return example
    .replace(/^node apps\/cli\/dist\/bin\.js/, `node ${ARBOR_BIN}`)
    .replace(/\[options\]/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/<id\|path>|<id>/g, sessionId)
    .replace(/\s+/g, " ")
    .trim();
}

let server: FakeProviderServer;
let sandbox: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startRoutedServer({ prompts: {}, title: "Talk with the fake model" });
  sandbox = await createSandbox();
  const bin = join(sandbox.root, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(
    join(bin, "arbor"),
    `#!/bin/sh\nexec "${process.execPath}" "${ARBOR_BIN}" "$@"\n`,
  );
  await chmod(join(bin, "arbor"), 0o755);
  env = {
    ...sandbox.env(server.openaiBaseURL),
    ANTHROPIC_API_KEY: "sk-ant-test",
    ANTHROPIC_BASE_URL: server.anthropicBaseURL,
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  };
});
afterAll(async () => {
  await server.close();
  await sandbox.remove();
});

function sh(
  command: string,
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      "sh",
      ["-c", command],
      { cwd, env, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end("prompt from stdin\n");
  });
}

describe("every example in the README and --help", () => {
  it("runs as printed (those that need no terminal or other files) against the fake server", async () => {
    const examples = await documentedCommands();
    expect(examples.length).toBeGreaterThan(15);
    const first = await sh('arbor run "make a session"', sandbox.project);
    expect(first.code).toBe(0);
    const listed = JSON.parse((await sh("arbor sessions list --json", sandbox.project)).stdout) as {
      id: string;
    }[];
    const sessionId = (listed[0] as { id: string }).id;
    const ran: string[] = [];
    for (const example of examples) {
      if (NOT_RUN.some(([pattern]) => pattern.test(example))) continue;
      const command = runnable(example, sessionId);
      const cwd = command.includes(ARBOR_BIN) ? REPO_ROOT : sandbox.project;
      // What an earlier example exported is not in the way of the next (exports keep files).
      for (const name of await readdir(sandbox.project)) {
        if (/\.(html|md|jsonl)$/.test(name)) await rm(join(sandbox.project, name));
      }
      const result = await sh(command, cwd);
      expect(result.code, `${example} (run as: ${command}):\n${result.stderr}`).toBe(0);
      ran.push(example);
    }
    // The examples users try first are among those run.
    expect(ran).toEqual(
      expect.arrayContaining([
        'arbor -p "prompt"',
        'arbor "fix the tests"',
        "arbor demo",
        "arbor sessions list | head",
        'git diff | arbor -p "review this"',
      ]),
    );
  });
});
