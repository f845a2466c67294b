import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtInSystemPrompt, gatherPromptFacts } from "./system-prompt.js";

describe("builtInSystemPrompt", () => {
  it("says who the agent is, where it runs, how to use its tools and the approval mode", () => {
    const prompt = builtInSystemPrompt({
      cwd: "/home/ada/project",
      os: "Linux 6.8.0 (linux)",
      shell: "bash (the user's shell: zsh)",
      date: "2026-11-27",
      git: { branch: "main", dirtyFiles: 1 },
      tools: ["read", "edit", "bash", "tickets_search"],
      approvalMode: "auto-edit",
    });
    expect(prompt).toMatchInlineSnapshot(`
      "You are Arbor, a coding agent working in the user's terminal. You help with software tasks: reading and changing code, running commands, explaining what you find. Do what was asked, no more; when something is unclear, ask.

      # Environment
      - Working directory: /home/ada/project (paths are relative to it)
      - OS: Linux 6.8.0 (linux); shell: bash (the user's shell: zsh)
      - Date: 2026-11-27
      - Git: a git repository on branch main, 1 changed or untracked file at the start of the session

      # Tools
      - read: read a file before editing it; read large files in ranges (offset, limit).
      - edit: change an existing file by replacing an exact, unique piece of text; prefer it over write.
      - bash: run non-interactive commands (stdin is closed; pass -y/--yes, avoid pagers and editors); prefer read, grep, find and ls for looking at files.
      - Also: tickets_search (see their descriptions).
      - Read before you edit, keep changes small, and check your work (run the tests or the command that shows it) when you can.

      # Approvals
      Approval mode auto-edit: file edits run without asking; commands need the user's approval. A denied call comes back as an error: do not retry it.

      # Answers
      Be concise. Say what you changed and what you could not do. Never invent file contents or command output."
    `);
  });

  it("gathers the same facts twice in a row (nothing per turn), and no git outside a repository", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-prompt-"));
    try {
      const input = {
        cwd: dir,
        env: {},
        tools: ["read"],
        approvalMode: "ask",
        now: new Date(2026, 10, 27),
      };
      const first = await gatherPromptFacts(input);
      expect(await gatherPromptFacts(input)).toEqual(first);
      expect(first).toMatchObject({ cwd: dir, date: "2026-11-27", git: undefined });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
