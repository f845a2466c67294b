/*
 * The repository's example extensions that talk to the user and steer the session
 * (examples/extensions/: permission-gate, plan-mode, todo-list, fresh-start), loaded from
 * their TypeScript source and run through AgentHost with a scripted UI, as an app runs them.
 */
import { fileURLToPath } from "node:url";
import { type ExtensionErrorEvent, ExtensionRunner } from "@arbor/extensions-api";
import { ScriptedExtensionUI, type ScriptedUIAnswer } from "@arbor/extensions-api/test";
import type { ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType, type Session } from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedHostOptions } from "../../test/host-fixtures.js";
import { AgentHost } from "./agent-host.js";

const examplesDir = fileURLToPath(new URL("../../../../examples/extensions/", import.meta.url));

function recordingBash(ran: string[]): AgentTool {
  return defineTool({
    name: "bash",
    description: "Runs a shell command",
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => {
      ran.push(command);
      return `ran ${command}`;
    },
  }) as AgentTool;
}

async function hostWith(
  file: string,
  responses: readonly ScriptedResponseInput[],
  answers: readonly ScriptedUIAnswer[] | undefined,
) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: examplesDir,
    paths: [file],
    includeProject: false,
    onError: (error) => errors.push(error),
  });
  const loaded = await runner.loadAll();
  expect(loaded).toHaveLength(1);
  const ui = answers ? new ScriptedExtensionUI(answers) : undefined;
  const ran: string[] = [];
  const { options, model } = scriptedHostOptions(responses, {
    extensions: runner,
    tools: [recordingBash(ran)],
    ...(ui ? { ui } : {}),
  });
  const host = await AgentHost.open(options);
  return { host, runner, ui, ran, errors, model };
}

const bash = (id: string, command: string) => ({
  type: "toolCall" as const,
  id,
  name: "bash",
  arguments: { command },
});

function toolResultTexts(session: Session): Record<string, string> {
  const results: Record<string, string> = {};
  for (const entry of session.getBranch()) {
    if (!isEntryOfType(entry, "message") || entry.message.role !== "toolResult") continue;
    const message = entry.message as unknown as {
      toolCallId: string;
      content: Array<{ text?: string }>;
    };
    results[message.toolCallId] = message.content.map((part) => part.text ?? "").join("");
  }
  return results;
}

describe("permission-gate", () => {
  it("asks only for matching commands and does what the user picked", async () => {
    const { host, ui, ran, errors } = await hostWith(
      "permission-gate.ts",
      [
        {
          blocks: [
            bash("c1", "ls -la"),
            bash("c2", "rm build/out.txt"),
            bash("c3", "git push origin main"),
            bash("c4", "pnpm add left-pad"),
            bash("c5", "pnpm install"),
            bash("c6", "sudo reboot"),
          ],
        },
        "done",
      ],
      [
        { select: "Allow once" },
        { select: "Deny" },
        { select: "Allow for this session" },
        { dismiss: true },
      ],
    );
    await host.prompt("tidy up").result;
    // pnpm install matches the pattern allowed for the session: not asked again.
    expect(ran).toEqual(["ls -la", "rm build/out.txt", "pnpm add left-pad", "pnpm install"]);
    const results = toolResultTexts(host.session);
    expect(results.c3).toContain("Not run: the user denied it");
    expect(results.c6).toContain("Not run: the user did not answer");
    expect(ui?.requests.map((r) => (r.kind === "select" ? r.title : ""))).toEqual([
      "Allow this command?\n  rm build/out.txt",
      "Allow this command?\n  git push origin main",
      "Allow this command?\n  pnpm add left-pad",
      "Allow this command?\n  sudo reboot",
    ]);
    expect(ui?.notifications).toHaveLength(1);
    ui?.assertDone();
    expect(errors).toEqual([]);
    await host.close();
  });

  it("fails closed without a UI: gated commands are denied, others run", async () => {
    const { host, ran } = await hostWith(
      "permission-gate.ts",
      [{ blocks: [bash("c1", "rm -f a"), bash("c2", "echo hi")] }, "ok"],
      undefined,
    );
    await host.prompt("go").result;
    expect(ran).toEqual(["echo hi"]);
    expect(toolResultTexts(host.session).c1).toContain("there is nobody to ask");
    await host.close();
  });
});

describe("plan-mode", () => {
  it("/plan on <task> blocks changes, says so in the system prompt, and sends the task", async () => {
    const { host, ran, model, ui } = await hostWith(
      "plan-mode.ts",
      [
        { blocks: [bash("c1", "touch x")] },
        "1. Do it",
        "switching",
        { blocks: [bash("c2", "touch y")] },
        "done",
      ],
      [],
    );
    const { outcome, run } = await host.runCommand("plan", "on Design the cache");
    expect(outcome).toEqual({ status: "done", prompt: "Design the cache" });
    await run?.result;
    expect(ran).toEqual([]);
    expect(toolResultTexts(host.session).c1).toContain("Plan mode is on");
    expect(model.requests[0]?.system).toContain("You are in plan mode");
    // /plan alone toggles it off; a bare toggle sends nothing.
    expect((await host.runCommand("plan")).outcome).toEqual({ status: "done" });
    await host.prompt("now build it").result;
    await host.prompt("go on").result;
    expect(ran).toEqual(["touch y"]);
    expect(ui?.notifications.map((n) => n.message)).toEqual([
      "Plan mode on: read-only",
      "Plan mode off",
    ]);
    await host.close();
  });

  it("follows the branch: navigating back before /plan on leaves plan mode", async () => {
    const { host, ran } = await hostWith(
      "plan-mode.ts",
      ["hello", { blocks: [bash("c1", "make")] }, "built"],
      [],
    );
    await host.prompt("hi").result;
    const before = host.session.getLeafId();
    await host.runCommand("plan", "on");
    await host.navigate(before);
    await host.prompt("build").result;
    expect(ran).toEqual(["make"]);
    await host.close();
  });
});

describe("todo-list", () => {
  it("keeps the list in custom entries and shows it with its renderer", async () => {
    const { host, runner, ui, errors } = await hostWith("todo-list.ts", [], []);
    await host.runCommand("todo", "add write the tests");
    await host.runCommand("todo", "add ship it");
    await host.runCommand("todo", "done 1");
    await host.runCommand("todo", "done 7");
    await host.runCommand("todos");
    const customs = host.session
      .getEntries()
      .filter((entry) => isEntryOfType(entry, "custom") && entry.customType === "todo");
    expect(customs).toHaveLength(3);
    const shown = host.session.getEntries().find((entry) => isEntryOfType(entry, "custom_message"));
    expect(shown && isEntryOfType(shown, "custom_message")).toBe(true);
    if (!shown || !isEntryOfType(shown, "custom_message")) return;
    expect(
      runner.renderMessage(
        {
          customType: shown.customType,
          content: shown.content as string,
          display: shown.display,
          details: shown.details,
        },
        { width: 40 },
      ),
    ).toEqual({
      lines: ["Todo (1 open of 2)", "1. [x] write the tests", "2. [ ] ship it"],
      extensionName: "todo-list",
    });
    // The HTML export gets a list, the user's words escaped.
    await host.runCommand("todo", "add <script>alert(1)</script> & more");
    await host.runCommand("todos");
    const last = host.session.getBranch().findLast((e) => isEntryOfType(e, "custom_message"));
    if (!last || !isEntryOfType(last, "custom_message")) throw new Error("no list shown");
    expect(
      runner.renderForExport({
        customType: last.customType,
        content: last.content,
        display: last.display,
        details: last.details,
      }),
    ).toEqual({
      html:
        "<p><strong>Todo (2 open of 3)</strong></p><ol><li>☑ write the tests</li><li>☐ ship it</li>" +
        "<li>☐ &#60;script&#62;alert(1)&#60;/script&#62; &#38; more</li></ol>",
      by: "todo-list",
    });
    expect(ui?.notifications.map((n) => `${n.level}:${n.message}`)).toEqual([
      "info:1 open of 1",
      "info:2 open of 2",
      "info:1 open of 2",
      "warning:There is no item 7",
      "info:2 open of 3",
    ]);
    expect(errors).toEqual([]);
    await host.close();
  });

  it("follows the branch: after navigating back the list is what it was", async () => {
    const { host } = await hostWith("todo-list.ts", [], []);
    await host.runCommand("todo", "add one");
    const afterOne = host.session.getLeafId();
    await host.runCommand("todo", "add two");
    await host.navigate(afterOne);
    await host.runCommand("todos");
    const shown = host.session.getBranch().findLast((e) => isEntryOfType(e, "custom_message"));
    expect(shown && isEntryOfType(shown, "custom_message") && shown.content).toBe("1. [ ] one");
    await host.close();
  });
});

describe("fresh-start", () => {
  it("/fresh summarizes, leaves for a new session and sends the summary as its first prompt", async () => {
    const { host, ui, errors } = await hostWith(
      "fresh-start.ts",
      ["The bug is in parse()", "Continuing: fix parse()"],
      [],
    );
    await host.prompt("Find the bug in the parser").result;
    const old = host.session.id;
    const oldEntries = host.session.getEntries().length;
    const { outcome, run } = await host.runCommand("fresh", "the failing test");
    expect(outcome.status).toBe("done");
    await run?.result;
    expect(host.session.id).not.toBe(old);
    const users = host.session
      .getBranch()
      .flatMap((e) =>
        isEntryOfType(e, "message") && e.message.role === "user" ? [e.message.content] : [],
      );
    expect(users).toHaveLength(1);
    expect(users[0]).toContain("- Find the bug in the parser");
    expect(users[0]).toContain("The bug is in parse()");
    expect(users[0]).toContain("Focus now on: the failing test");
    expect(ui?.notifications[0]?.message).toContain(`from ${old}`);
    // The old session is kept as it was.
    await host.switchSession({ sessionId: old });
    expect(host.session.getEntries()).toHaveLength(oldEntries);
    expect(errors).toEqual([]);
    await host.close();
  });

  it("/fresh on an empty session stays and says why", async () => {
    const { host, ui } = await hostWith("fresh-start.ts", [], []);
    const id = host.session.id;
    expect((await host.runCommand("fresh")).outcome).toEqual({ status: "done" });
    expect(host.session.id).toBe(id);
    expect(ui?.notifications).toEqual([
      { extensionName: "fresh-start", message: "Nothing to summarize yet", level: "warning" },
    ]);
    await host.close();
  });
});
