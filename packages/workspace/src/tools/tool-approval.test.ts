import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { workspaceTools } from "../workspace-tools.js";
import { APPROVAL_WAIT_MS, type ToolCallRequest } from "./tool-approval.js";

let project: string;
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "arbor-tool-approval-"));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const context = () => ({ signal: new AbortController().signal, toolCallId: "call-1" });

describe("the approval hook", () => {
  it("asks the app before every call, and a refusal keeps the call from running", async () => {
    const asked: ToolCallRequest[] = [];
    const tools = workspaceTools(project, {
      approve: async (request) => {
        asked.push(request);
        if (request.tool === "write") throw new Error("The user declined this write call.");
      },
    });
    const write = tools.find((tool) => tool.name === "write");
    const ls = tools.find((tool) => tool.name === "ls");
    await expect(write?.execute({ path: "a.txt", content: "hi" }, context())).rejects.toThrow(
      "declined",
    );
    await expect(readFile(join(project, "a.txt"))).rejects.toThrow("ENOENT");
    expect(typeof (await ls?.execute({ path: ".", depth: 1 }, context()))).toBe("string");
    expect(asked).toEqual([
      { tool: "write", toolCallId: "call-1", args: { path: "a.txt", content: "hi" } },
      { tool: "ls", toolCallId: "call-1", args: { path: ".", depth: 1 } },
    ]);
  });

  it("does not count the wait for an answer against the tool's own timeout", async () => {
    const tools = workspaceTools(project, {
      approve: () => new Promise((resolve) => setTimeout(resolve, 300)),
    });
    const write = tools.find((tool) => tool.name === "write");
    expect(write?.timeoutMs).toBe(APPROVAL_WAIT_MS);
    expect(await write?.execute({ path: "b.txt", content: "x" }, context())).toContain("Created");
    expect(workspaceTools(project).find((tool) => tool.name === "write")?.timeoutMs).toBe(15_000);
  });
});
