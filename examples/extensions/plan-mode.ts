/*
 * `/plan [on|off] [task]`: plan mode. While it is on, the agent may read but not change
 * anything: tools that write or run commands are blocked, and the system prompt says so.
 * `/plan` alone toggles it; `/plan on Design the cache` turns it on and sends the task as
 * the next prompt. The mode is stored in the session (`plan-mode` entries), so it follows
 * the branch: navigating back before `/plan on` leaves plan mode.
 *
 * Load it with `arbor --extension examples/extensions/plan-mode.ts`.
 */
import type { ExtensionAPI, ReadonlySessionView } from "@arbor/extensions-api";

/** Tools that change files or run commands. */
export const MUTATING_TOOLS = new Set(["bash", "shell", "exec", "write", "edit", "apply_patch"]);

/** The `custom` entry type the mode is stored in. */
export const PLAN_MODE_ENTRY = "plan-mode";

const PLAN_PROMPT =
  "You are in plan mode: investigate with read-only tools and answer with a numbered plan. Do not change files or run commands.";

export default function planMode(arbor: ExtensionAPI): void {
  arbor.registerCommand("plan", {
    description: "Toggle plan mode (read-only): /plan [on|off] [task]",
    handler: async (args, ctx) => {
      const [word = "", ...rest] = args.split(/\s+/);
      const explicit = word === "on" || word === "off";
      const enabled = explicit ? word === "on" : !isPlanning(ctx.session);
      const task = (explicit ? rest.join(" ") : args).trim();
      await arbor.appendEntry(PLAN_MODE_ENTRY, { enabled });
      ctx.ui.notify(enabled ? "Plan mode on: read-only" : "Plan mode off");
      return enabled && task ? task : undefined;
    },
  });

  arbor.on("before_agent_start", (event, ctx) =>
    isPlanning(ctx.session)
      ? { systemPrompt: `${event.systemPrompt}\n\n${PLAN_PROMPT}` }
      : undefined,
  );

  arbor.on("tool_call", (event, ctx) =>
    MUTATING_TOOLS.has(event.toolName) && isPlanning(ctx.session)
      ? {
          block: true,
          reason:
            "Plan mode is on: only read-only tools may run. Propose the change in the plan instead.",
        }
      : undefined,
  );
}

/** Whether the newest `plan-mode` entry on the current branch turned the mode on. */
export function isPlanning(session: ReadonlySessionView): boolean {
  const branch = session.getBranch();
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index];
    if (entry?.type === "custom" && entry.customType === PLAN_MODE_ENTRY)
      return (entry.data as { enabled?: unknown } | undefined)?.enabled === true;
  }
  return false;
}
