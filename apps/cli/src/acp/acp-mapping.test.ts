import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSlashCommand } from "./acp-commands.js";
import { confinedPath } from "./client-tools.js";
import { planOf, stopReasonOf } from "./live-updates.js";
import { promptInput } from "./prompt-input.js";
import { toolCallView } from "./tool-call-view.js";

describe("stopReasonOf", () => {
  it.each([
    [{ success: true }, "stop", "end_turn"],
    [{ success: true }, "refusal", "refusal"],
    [{ success: true }, "content_filter", "refusal"],
    [{ success: true }, "length", "max_tokens"],
    [{ success: false, reason: "aborted" }, undefined, "cancelled"],
    [{ success: false, reason: "shutdown" }, undefined, "cancelled"],
    [{ success: false, reason: "max_turns" }, undefined, "max_turn_requests"],
    [{ success: false, reason: "truncated_answer" }, undefined, "max_tokens"],
    [{ success: false, reason: "refused" }, undefined, "refusal"],
    [{ success: false, reason: "retries_exhausted" }, undefined, undefined],
  ])("%o with a last stop %s is %s", (result, last, expected) => {
    expect(stopReasonOf(result, last)).toBe(expected);
  });
});

describe("toolCallView", () => {
  it("names kinds, absolute locations and diffs", () => {
    expect(toolCallView("edit", { path: "a.ts", oldText: "x", newText: "y" }, "/p")).toEqual({
      title: "Edit a.ts",
      kind: "edit",
      locations: [{ path: "/p/a.ts" }],
      content: [{ type: "diff", path: "/p/a.ts", oldText: "x", newText: "y" }],
    });
    expect(toolCallView("read", { path: "/abs/b.ts", offset: 4 }, "/p").locations).toEqual([
      { path: "/abs/b.ts", line: 4 },
    ]);
    expect(toolCallView("bash", { command: "ls" }, "/p")).toMatchObject({
      title: "ls",
      kind: "execute",
    });
    expect(toolCallView("grep", { pattern: "foo" }, "/p").kind).toBe("search");
    expect(toolCallView("mcp_thing", "not an object", "/p")).toMatchObject({
      kind: "other",
      title: "mcp_thing",
    });
  });
});

describe("promptInput", () => {
  it("keeps text, links resources, embeds text resources and passes images", () => {
    const input = promptInput([
      { type: "text", text: "look at" },
      { type: "resource_link", name: "a.ts", uri: "file:///p/a.ts" },
      { type: "resource", resource: { uri: "file:///p/b.ts", text: "const b = 1;" } },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(input.text).toBe(
      'look at\n[a.ts](file:///p/a.ts)\n<context uri="file:///p/b.ts">\nconst b = 1;\n</context>',
    );
    expect(input.images).toEqual([{ type: "image", data: "AAAA", mimeType: "image/png" }]);
  });
});

describe("parseSlashCommand and planOf", () => {
  it("reads a command and its arguments; plain text is no command", () => {
    expect(parseSlashCommand("/tree abc")).toEqual({ name: "tree", args: "abc" });
    expect(parseSlashCommand("/compact")).toEqual({ name: "compact", args: "" });
    expect(parseSlashCommand("fix /tree")).toBeUndefined();
    expect(parseSlashCommand("/ nothing")).toBeUndefined();
  });

  it("shows a task status as a plan", () => {
    expect(
      planOf({ status: "in_progress", message: "testing", done: "built", pending: "docs" }),
    ).toEqual([
      { content: "built", priority: "medium", status: "completed" },
      { content: "testing", priority: "high", status: "in_progress" },
      { content: "docs", priority: "medium", status: "pending" },
    ]);
  });
});

describe("confinedPath", () => {
  it("keeps the client tools' paths in the working directory, symbolic links followed", async () => {
    const root = await mkdtemp(join(tmpdir(), "arbor-acp-confine-"));
    try {
      const cwd = join(root, "project");
      await mkdir(join(cwd, "src"), { recursive: true });
      await symlink(root, join(cwd, "out"));
      expect(await confinedPath(cwd, "src/new.ts")).toBe(join(cwd, "src/new.ts"));
      await expect(confinedPath(cwd, "../secret")).rejects.toThrow(/outside the working directory/);
      await expect(confinedPath(cwd, "/etc/passwd")).rejects.toThrow(/outside/);
      await expect(confinedPath(cwd, "out/secret")).rejects.toThrow(/outside/);
      await expect(confinedPath(cwd, "a\0b")).rejects.toThrow(/not a file path/);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
