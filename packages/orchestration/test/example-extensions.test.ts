/*
 * The repository's example extensions (examples/extensions/), loaded from their TypeScript
 * source and run through AgentHost, the way an app runs them. turn-runner's
 * examples.test.ts checks the same files against a bare AgentSession.
 */
import { fileURLToPath } from "node:url";
import { type ExtensionErrorEvent, ExtensionRunner } from "@arbor/extensions-api";
import type { ScriptedResponseInput } from "@arbor/providers/test";
import { isEntryOfType, type Session, type SessionEntry } from "@arbor/session-store";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "../src/definition/index.js";
import { AgentHost } from "../src/host/index.js";
import { scriptedHostOptions } from "./host-fixtures.js";

const examplesDir = fileURLToPath(new URL("../../../examples/extensions/", import.meta.url));

/** A `bash` tool that records the commands it ran instead of running them. */
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

/** Opens a host on a memory store with one example extension loaded into its runner. */
async function hostWithExample(
  file: string,
  responses: readonly ScriptedResponseInput[],
  agentOptions: Record<string, unknown> = {},
) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({
    cwd: examplesDir,
    paths: [file],
    onError: (error) => errors.push(error),
  });
  const loaded = await runner.loadAll();
  const ran: string[] = [];
  const { options, model } = scriptedHostOptions(responses, {
    extensions: runner,
    tools: [recordingBash(ran)],
  });
  const host = await AgentHost.open({
    ...options,
    agentOptions: { ...options.agentOptions, ...agentOptions },
  });
  return { host, model, loaded, errors, ran };
}

function lastAssistantId(session: Session): string | undefined {
  return session
    .getBranch()
    .findLast((entry) => isEntryOfType(entry, "message") && entry.message.role === "assistant")?.id;
}

function toolResults(session: Session): Map<string, { isError: boolean; content: unknown }> {
  const results = new Map<string, { isError: boolean; content: unknown }>();
  for (const entry of session.getBranch() as SessionEntry[]) {
    if (!isEntryOfType(entry, "message") || entry.message.role !== "toolResult") continue;
    const message = entry.message as unknown as {
      toolCallId: string;
      isError: boolean;
      content: unknown;
    };
    results.set(message.toolCallId, message);
  }
  return results;
}

describe("example extensions through AgentHost", () => {
  it("bookmark: /bookmark labels the current point; twice labels the answer, not the label", async () => {
    const { host, loaded, errors } = await hostWithExample("bookmark.ts", ["Hello", "Again"]);
    expect(loaded.map(({ name, commands }) => ({ name, commands }))).toEqual([
      { name: "bookmark", commands: ["bookmark"] },
    ]);
    await host.prompt("Hi").result;
    const first = lastAssistantId(host.session) as string;
    expect((await host.runCommand("bookmark", "  before refactor ")).outcome).toEqual({
      status: "done",
    });
    expect(host.session.getLabel(first)).toBe("before refactor");

    await host.prompt("Once more").result;
    const second = lastAssistantId(host.session) as string;
    await host.runCommand("/bookmark", "");
    await host.runCommand("bookmark", "after");
    expect(host.session.getLabel(second)).toBe("after");
    expect(host.session.getLabel(first)).toBe("before refactor");
    expect(errors).toEqual([]);
    await host.close();
  });

  it("bookmark: on an empty session the command fails with its reason", async () => {
    const { host, errors } = await hostWithExample("bookmark.ts", []);
    const { outcome } = await host.runCommand("bookmark", "x");
    expect(outcome).toMatchObject({ status: "failed" });
    expect(outcome?.status === "failed" && outcome.error).toContain("nothing to bookmark yet");
    expect(errors.map(({ extensionName, event, kind }) => [extensionName, event, kind])).toEqual([
      ["bookmark", "command", "threw"],
    ]);
    await host.close();
  });

  it("bookmark: labels survive a fork of the host (the fork copies the labelled path)", async () => {
    const { host } = await hostWithExample("bookmark.ts", ["Hello"]);
    await host.prompt("Hi").result;
    const answer = lastAssistantId(host.session) as string;
    await host.runCommand("bookmark", "kept");
    const forked = await host.fork();
    expect(host.session).toBe(forked);
    expect(forked.getLabel(answer)).toBe("kept");
    await host.close();
  });

  it("dangerous-tool-guard: blocks rm -rf, mkfs, dd and force pushes with a reason; harmless commands run", async () => {
    const call = (id: string, command: string) => ({
      type: "toolCall" as const,
      id,
      name: "bash",
      arguments: { command },
    });
    const { host, model, ran, errors } = await hostWithExample("dangerous-tool-guard.ts", [
      {
        blocks: [
          call("c1", "rm -rf / --no-preserve-root"),
          call("c2", "ls -la"),
          call("c3", "git push -f origin main"),
          call("c4", "rm -r build"),
          call("c5", "echo 'rm -rf' is bad"),
        ],
      },
      "I will ask you to do that.",
    ]);
    const result = await host.prompt("Clean up the disk").result;

    expect(result.success).toBe(true);
    // Quoted text is not parsed, so the echo is blocked too.
    expect(ran).toEqual(["ls -la", "rm -r build"]);
    const results = toolResults(host.session);
    expect(results.get("c1")).toMatchObject({ isError: true });
    expect(JSON.stringify(results.get("c1")?.content)).toContain("a recursive forced delete");
    expect(results.get("c2")).toMatchObject({ isError: false, content: [{ text: "ran ls -la" }] });
    expect(JSON.stringify(results.get("c3")?.content)).toContain("a force push");
    expect(results.get("c5")).toMatchObject({ isError: true });
    const told = model.requests[1]?.messages.filter((m) => m.role === "toolResult") ?? [];
    expect(told.filter((m) => m.role === "toolResult" && m.isError)).toHaveLength(3);
    expect(host.state().busy).toBeUndefined();
    expect(errors).toEqual([]);
    await host.close();
  });

  it("custom-compaction: host.compact() takes the extension's summary; the model is never asked", async () => {
    const long = (word: string) => `${word} `.repeat(120);
    const { host, model, errors } = await hostWithExample(
      "custom-compaction.ts",
      [long("alpha"), long("beta"), long("gamma"), "after compaction"],
      { compaction: { keepRecentTokens: 200 } },
    );
    for (const prompt of ["Fix the parser", "Now the lexer", "And the tests"])
      await host.prompt(`${prompt} ${long("x")}`).result;

    const outcome = await host.compact("keep file names");

    expect(outcome).toMatchObject({ status: "compacted" });
    expect(model.requests).toHaveLength(3);
    const compaction = host.session
      .getEntries()
      .find((entry) => isEntryOfType(entry, "compaction"));
    const summary = (compaction as { summary: string }).summary;
    expect(summary).toContain("Focus: keep file names");
    expect(summary).toContain("- The user asked: Fix the parser x x");
    expect(compaction).toMatchObject({
      fromHook: true,
      details: { summarizedBy: "custom-compaction" },
    });

    await host.prompt("Where were we?").result;
    const first = model.requests[3]?.messages[0];
    expect(first?.role).toBe("user");
    expect(JSON.stringify(first?.content)).toContain("Earlier in this session");
    expect(errors).toEqual([]);
    await host.close();
  });

  it("an agent definition that lists an example loads it into the host's runner once", async () => {
    const runner = new ExtensionRunner({ cwd: examplesDir, includeProject: false });
    const path = fileURLToPath(new URL("bookmark.ts", `file://${examplesDir}`));
    const { options } = scriptedHostOptions(["Hello"], {
      extensions: runner,
      agent: defineAgent({
        name: "bookmarker",
        systemPrompt: "You help.",
        models: ["scripted/scripted"],
        extensions: [path],
      }),
    });
    const host = await AgentHost.open(options);
    await host.prompt("Hi").result;
    expect((await host.runCommand("bookmark", "here")).outcome).toEqual({
      status: "done",
    });
    expect(host.session.getLabel(lastAssistantId(host.session) as string)).toBe("here");
    // A switch builds a new agent on the same runner; the file is not loaded twice.
    await host.switchSession({ create: { cwd: "/project" } });
    expect(runner.extensions.filter((loaded) => loaded.path === path)).toHaveLength(1);
    await host.close();
  });
});
