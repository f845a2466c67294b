import { execFile } from "node:child_process";
import { release, type } from "node:os";
import { basename } from "node:path";

/** The git state of the working directory when the session's agent was set up. */
export interface GitFacts {
  branch: string;
  /** Files `git status --porcelain` lists (changed, staged, untracked). */
  dirtyFiles: number;
}

/**
 * What the built-in system prompt tells the model about where it runs. Gathered once
 * when the agent is set up, so the prompt stays the same across turns (prompt caches
 * keep working); nothing in it changes per turn.
 */
export interface PromptFacts {
  cwd: string;
  /** e.g. `Linux 6.8.0 (linux)`. */
  os: string;
  /** The shell the bash tool runs commands with. */
  shell: string;
  /** The day the session's agent was set up, `YYYY-MM-DD`. */
  date: string;
  /** Undefined outside a git repository. */
  git: GitFacts | undefined;
  /** The tools the model has, by name. */
  tools: readonly string[];
  /** The approval mode the session started in. */
  approvalMode: string;
}

/** What each approval mode means for the model, in its words. */
const APPROVAL_WORDS: Record<string, string> = {
  ask: "the user approves every file change and command before it runs; a denied call comes back as an error: do not retry it, ask or choose another way.",
  "auto-edit":
    "file edits run without asking; commands need the user's approval. A denied call comes back as an error: do not retry it.",
  yolo: "file edits and commands run without asking. Be careful with anything destructive.",
  sandbox:
    "commands run without asking inside a sandbox (the working directory writable, the rest read-only, no network); anything that needs to leave it is asked.",
};

/** How to use the tools Arbor gives every session, one line each. */
const TOOL_GUIDANCE: Record<string, string> = {
  read: "read: read a file before editing it; read large files in ranges (offset, limit).",
  edit: "edit: change an existing file by replacing an exact, unique piece of text; prefer it over write.",
  write: "write: create a new file or replace one completely.",
  bash: "bash: run non-interactive commands (stdin is closed; pass -y/--yes, avoid pagers and editors); prefer read, grep, find and ls for looking at files.",
  grep: "grep: search file contents by regular expression.",
  find: "find: list files by glob.",
  ls: "ls: list a folder.",
  task: "task: keep a plan of the work (items with states) for multi-step tasks; update it as items are done.",
  web_fetch: "web_fetch: read a web page (http/https) as text.",
};

/**
 * Arbor's built-in system prompt: the agent's role, where it runs, the tools and how to
 * use them, and the approval mode. `--system-prompt` (or the config's `systemPrompt`)
 * replaces it; `--append-system-prompt` and AGENTS.md/CLAUDE.md add to it.
 * @example
 * ```ts
 * builtInSystemPrompt(await gatherPromptFacts({ cwd, env, tools: ["read", "bash"], approvalMode: "ask" }));
 * ```
 */
export function builtInSystemPrompt(facts: PromptFacts): string {
  const git =
    facts.git === undefined
      ? "not a git repository"
      : `a git repository on branch ${facts.git.branch}, ${facts.git.dirtyFiles} changed or untracked file${facts.git.dirtyFiles === 1 ? "" : "s"} at the start of the session`;
  const known = facts.tools.filter((name) => TOOL_GUIDANCE[name] !== undefined);
  const others = facts.tools.filter((name) => TOOL_GUIDANCE[name] === undefined);
  const toolLines = known.map((name) => `- ${TOOL_GUIDANCE[name]}`);
  if (others.length > 0) toolLines.push(`- Also: ${others.join(", ")} (see their descriptions).`);
  const approval = APPROVAL_WORDS[facts.approvalMode] ?? `approval mode ${facts.approvalMode}.`;
  return [
    "You are Arbor, a coding agent working in the user's terminal. You help with software tasks: reading and changing code, running commands, explaining what you find. Do what was asked, no more; when something is unclear, ask.",
    "",
    "# Environment",
    `- Working directory: ${facts.cwd} (paths are relative to it)`,
    `- OS: ${facts.os}; shell: ${facts.shell}`,
    `- Date: ${facts.date}`,
    `- Git: ${git}`,
    "",
    "# Tools",
    ...(toolLines.length > 0 ? toolLines : ["- No tools: answer from what you know."]),
    "- Read before you edit, keep changes small, and check your work (run the tests or the command that shows it) when you can.",
    "",
    "# Approvals",
    `Approval mode ${facts.approvalMode}: ${approval}`,
    "",
    "# Answers",
    "Be concise. Say what you changed and what you could not do. Never invent file contents or command output.",
  ].join("\n");
}

function run(command: string, args: readonly string[], cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, timeout: 3_000, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
}

/** The branch and the count of changed files, or undefined outside a repository (or without git). */
export async function gitFacts(cwd: string): Promise<GitFacts | undefined> {
  const branch = await run("git", ["rev-parse", "--abbrev-ref", "HEAD"], cwd);
  if (branch === undefined) return undefined;
  const status = await run("git", ["status", "--porcelain"], cwd);
  const dirtyFiles = status === undefined ? 0 : status.split("\n").filter((l) => l !== "").length;
  return { branch: branch.trim() || "(unknown)", dirtyFiles };
}

/** Gathers the {@link PromptFacts} of a working directory now. */
export async function gatherPromptFacts(input: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  tools: readonly string[];
  approvalMode: string;
  now?: Date;
}): Promise<PromptFacts> {
  const now = input.now ?? new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  return {
    cwd: input.cwd,
    os: `${type()} ${release()} (${process.platform})`,
    // The bash tool runs `bash -c`, whatever the user's login shell.
    shell: `bash (the user's shell: ${input.env.SHELL ? basename(input.env.SHELL) : "unknown"})`,
    date: `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`,
    git: await gitFacts(input.cwd),
    tools: input.tools,
    approvalMode: input.approvalMode,
  };
}
