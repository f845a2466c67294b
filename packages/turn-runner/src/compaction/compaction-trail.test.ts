import type { AgentMessage } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  collectCompactionTrail,
  commandEndingOf,
  MAX_TRAIL_COMMANDS,
  withoutTrail,
  withTrail,
} from "./compaction-trail.js";

const call = (id: string, name: string, args: Record<string, unknown>): AgentMessage =>
  ({
    role: "assistant",
    content: [{ type: "toolCall", id, name, arguments: args }],
  }) as AgentMessage;
const result = (id: string, text: string): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, content: [{ type: "text", text }] }) as AgentMessage;

describe("compaction trail", () => {
  it("lists files read, written and edited and the commands with their endings", () => {
    const trail = collectCompactionTrail(
      [
        call("1", "read", { path: "src/a.ts" }),
        result("1", "..."),
        call("2", "edit", { path: "src/a.ts" }),
        result("2", "ok"),
        call("3", "write", { path: "NOTES.md" }),
        result("3", "ok"),
        call("4", "bash", { command: "pnpm test" }),
        result("4", "1 failed\n[exit code 1]"),
        call("5", "bash", { command: "sleep 100" }),
        result("5", "[timed out after 10 s; the command and its process group were stopped]"),
        call("6", "read", { path: "README.md" }),
        call("7", "bash", { command: "echo hi\necho there" }),
        result("7", "hi\nthere\n[exit code 0]"),
      ],
      { openTasks: ["[in_progress] fix the parser"] },
    );
    expect(trail).toEqual({
      readFiles: ["README.md"],
      writtenFiles: ["NOTES.md"],
      editedFiles: ["src/a.ts"],
      commands: [
        { command: "pnpm test", ending: "exit 1" },
        { command: "sleep 100", ending: "timed out" },
        { command: "echo hi ⏎ echo there", ending: "exit 0" },
      ],
      openTasks: ["[in_progress] fix the parser"],
      notes: [],
    });
    const summary = withTrail("## Goal\nfix", trail);
    expect(summary).toMatchInlineSnapshot(`
      "## Goal
      fix

      <read-files>
      README.md
      </read-files>
      <written-files>
      NOTES.md
      </written-files>
      <edited-files>
      src/a.ts
      </edited-files>
      <commands>
      pnpm test  → exit 1
      sleep 100  → timed out
      echo hi ⏎ echo there  → exit 0
      </commands>
      <open-tasks>
      [in_progress] fix the parser
      </open-tasks>"
    `);
    expect(withoutTrail(summary)).toBe("## Goal\nfix");
  });

  it("carries an earlier trail (and pi's modifiedFiles) and keeps the newest commands", () => {
    const many = Array.from({ length: MAX_TRAIL_COMMANDS + 5 }, (_, i) => [
      call(`c${i}`, "bash", { command: `step ${i}` }),
      result(`c${i}`, "[exit code 0]"),
    ]).flat();
    const trail = collectCompactionTrail(many, {
      carried: {
        readFiles: ["old.txt"],
        modifiedFiles: ["pi.ts"],
        commands: [{ command: "x", ending: "exit 0" }],
      },
    });
    expect(trail.readFiles).toEqual(["old.txt"]);
    expect(trail.editedFiles).toEqual(["pi.ts"]);
    expect(trail.commands).toHaveLength(MAX_TRAIL_COMMANDS);
    expect(trail.commands.at(-1)).toEqual({
      command: `step ${MAX_TRAIL_COMMANDS + 4}`,
      ending: "exit 0",
    });
  });

  it("reads every ending the bash tool writes", () => {
    expect(commandEndingOf("out\n[exit code 0]")).toBe("exit 0");
    expect(commandEndingOf("[killed by SIGKILL]")).toBe("killed by SIGKILL");
    expect(commandEndingOf("[stopped by the user; the process group was stopped]")).toBe("stopped");
    expect(commandEndingOf("no ending")).toBe("unknown");
  });
});
