import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSessionFile } from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { addTool, drain, scripted } from "../test/factories.js";
import { AgentSession } from "./agent-session.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("AgentSession: resume from a session file", () => {
  it("a reopened file rebuilds the same context and a new agent continues it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-turn-runner-"));
    dirs.push(dir);
    const path = join(dir, "session.jsonl");
    const first = await openSessionFile(path, { create: true });
    const model = scripted("alpha", [
      { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 2, b: 40 } }] },
      "42",
    ]);
    const { result } = await drain(
      new AgentSession({ targets: [{ model }], session: first, tools: [addTool] }).prompt("Add"),
    );
    expect(result).toMatchObject({ success: true, turns: 2, sessionFile: path });
    const before = first.buildSessionContext();
    await first.close();

    const reopened = await openSessionFile(path);
    expect(reopened.buildSessionContext()).toEqual(before);
    const next = scripted("beta", ["Still 42"]);
    await drain(
      new AgentSession({ targets: [{ model: next }], session: reopened }).prompt("Again?"),
    );
    expect(next.requests[0]?.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
    ]);
    await reopened.close();
  });

  it("a crash between an answer and its tool results still yields a valid request", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-turn-runner-"));
    dirs.push(dir);
    const path = join(dir, "session.jsonl");
    const crashed = await openSessionFile(path, { create: true });
    await crashed.appendMessage({ role: "user", content: "Add", timestamp: 1 });
    await crashed.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 1 } }],
      stopReason: "tool_use",
      provider: "alpha",
      model: "alpha-model",
      timestamp: 2,
    });
    await crashed.close();

    const reopened = await openSessionFile(path);
    const model = scripted("alpha", ["Let me redo that."]);
    await drain(new AgentSession({ targets: [{ model }], session: reopened }).prompt("Go on"));
    expect(model.requests[0]?.messages).toEqual([
      { role: "user", content: "Add" },
      {
        role: "assistant",
        content: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 1 } }],
      },
      {
        role: "toolResult",
        toolCallId: "c1",
        toolName: "add",
        content: [{ type: "text", text: "The tool run was interrupted; no result was recorded." }],
        isError: true,
      },
      { role: "user", content: "Go on" },
    ]);
    await reopened.close();
  });
});
