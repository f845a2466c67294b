/*
 * Blocks shell commands that destroy data before they run. The model gets the reason as
 * the tool's error result and can ask the user instead.
 *
 * It watches shell-like tools (`bash`, `shell`, `exec`, `run_command`) and reads their
 * `command` argument. Patterns are deliberately narrow: a guard that blocks everything is
 * switched off, one that blocks the obvious disasters stays on.
 */
import type { ExtensionAPI } from "@arbor/extensions-api";

/** Tool names whose `command` argument is run by a shell. */
const SHELL_TOOLS = new Set(["bash", "shell", "exec", "run_command"]);

/** What is blocked, and why, in words the model can pass on. */
const DANGEROUS_COMMANDS: ReadonlyArray<{ pattern: RegExp; why: string }> = [
  {
    pattern: /\brm\s+(?:-\w*r\w*f|-\w*f\w*r|-r\s+-f|-f\s+-r)\b/i,
    why: "a recursive forced delete",
  },
  {
    pattern: /\brm\s+--recursive\b.*--force\b|\brm\s+--force\b.*--recursive\b/,
    why: "a recursive forced delete",
  },
  { pattern: /\bmkfs(?:\.\w+)?\b/, why: "formatting a filesystem" },
  { pattern: /\bdd\b[^|;&]*\bof=\/dev\//, why: "writing to a raw device" },
  { pattern: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, why: "a fork bomb" },
  { pattern: /\bgit\s+push\b[^|;&]*\s(?:--force|-f)\b/, why: "a force push" },
];

export default function dangerousToolGuard(arbor: ExtensionAPI): void {
  arbor.on("tool_call", (event) => {
    if (!SHELL_TOOLS.has(event.toolName)) return undefined;
    const command = event.input.command;
    if (typeof command !== "string") return undefined;
    const match = DANGEROUS_COMMANDS.find(({ pattern }) => pattern.test(command));
    if (!match) return undefined;
    return {
      block: true,
      reason: `Blocked by dangerous-tool-guard: \`${command}\` is ${match.why}. Do not retry it; ask the user to run it themselves if it is really intended.`,
    };
  });
}
