/*
 * Asks the user before the agent runs shell commands that match a pattern (installs,
 * pushes, deletes, sudo). The user allows it once, allows every matching command for the
 * rest of the session, or denies it; the model gets the denial as the tool's error result.
 *
 * With nobody to ask (`arbor run`, a server client that does not answer, a timeout) the
 * request resolves to no answer and the command is denied: a gate fails closed.
 *
 * Load it with `arbor --extension examples/extensions/permission-gate.ts`, or copy it into
 * `.arbor/extensions/` of a project or of your home.
 */
import type { ExtensionAPI } from "@arbor/extensions-api";

/** Tool names whose `command` argument is run by a shell. */
const SHELL_TOOLS = new Set(["bash", "shell", "exec", "run_command"]);

/** Commands that need the user's yes. */
export const GATED_COMMANDS: readonly RegExp[] = [
  /\brm\b/,
  /\bsudo\b/,
  /\bgit\s+(?:push|reset|clean)\b/,
  /\b(?:npm|pnpm|yarn|pip)\s+(?:install|add|i)\b/,
  /\bcurl\b[^|]*\|\s*(?:ba|z)?sh\b/,
];

/** The choices offered, in order. */
export const CHOICES = ["Allow once", "Allow for this session", "Deny"] as const;

/** How long the user has to answer before the command is denied. */
const ANSWER_TIMEOUT_MS = 120_000;

export default function permissionGate(arbor: ExtensionAPI): void {
  /** Patterns the user allowed for the rest of the session. */
  let allowed = new Set<RegExp>();
  arbor.on("session_start", () => {
    allowed = new Set();
  });

  // Tool calls of one answer arrive together: ask one question at a time, so an
  // "Allow for this session" answer covers the calls still waiting.
  let asking: Promise<unknown> = Promise.resolve();

  arbor.on("tool_call", (event, ctx) => {
    if (!SHELL_TOOLS.has(event.toolName)) return undefined;
    const command = String(event.input.command ?? "");
    const gate = GATED_COMMANDS.find((pattern) => pattern.test(command));
    if (!gate) return undefined;
    const decision = asking.then(async () => {
      if (allowed.has(gate)) return undefined;
      const choice = await ctx.ui.select(`Allow this command?\n  ${command}`, CHOICES, {
        timeoutMs: ANSWER_TIMEOUT_MS,
      });
      if (choice === "Allow once") return undefined;
      if (choice === "Allow for this session") {
        allowed.add(gate);
        ctx.ui.notify(`Commands matching ${gate} are allowed for this session`);
        return undefined;
      }
      const why =
        choice === undefined
          ? ctx.hasUI
            ? "the user did not answer"
            : "there is nobody to ask for permission"
          : "the user denied it";
      return { block: true, reason: `Not run: ${why}. Ask the user before trying again.` };
    });
    asking = decision.catch(() => undefined);
    return decision;
  });
}
