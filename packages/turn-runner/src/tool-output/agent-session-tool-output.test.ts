import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model, ModelEvent, ModelRequest } from "@arbor/providers";
import {
  SCRIPTED_MODEL_INFO,
  type ScriptedResponseInput,
  scriptedResponseSchema,
  scriptToEvents,
} from "@arbor/providers/test";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { addTool, drain, memorySession, messageOf, scripted } from "../../test/factories.js";
import { AgentSession } from "../agent-session.js";
import { defineTool } from "../agent-tool.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-session-tool-output-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const digits = (length: number) => Array.from({ length }, (_, i) => String(i % 10)).join("");

const bigTool = defineTool({
  name: "big",
  description: "Returns a long text",
  parameters: z.object({}),
  execute: () => digits(1_000),
});

/**
 * A model that answers from the conversation so far, the way a real one would page: each
 * answer is computed from the request by `answer`, then played as scripted events.
 */
function reactiveModel(answer: (request: ModelRequest) => ScriptedResponseInput) {
  const requests: ModelRequest[] = [];
  const model: Model = {
    info: SCRIPTED_MODEL_INFO,
    async *stream(request): AsyncIterable<ModelEvent> {
      requests.push(request);
      const response = scriptedResponseSchema.parse(answer(request));
      yield* scriptToEvents(response, SCRIPTED_MODEL_INFO.id);
    },
  };
  return { model, requests };
}

const lastToolResultText = (request: ModelRequest): string => {
  const last = request.messages.at(-1);
  if (last?.role !== "toolResult") throw new Error("expected a tool result last");
  return last.content.map((part) => (part.type === "text" ? part.text : "")).join("");
};

describe("AgentSession with toolOutput", () => {
  it("stores an oversize result, and the model pages through it with read_tool_output", async () => {
    const session = await memorySession();
    const { model, requests } = reactiveModel((request) => {
      if (requests.length === 1) {
        return { blocks: [{ type: "toolCall", id: "c1", name: "big", arguments: {} }] };
      }
      if (requests.length === 2) {
        const handle = lastToolResultText(request).match(/stored as (out_[0-9a-f]{16})/)?.[1];
        return {
          blocks: [
            {
              type: "toolCall",
              id: "c2",
              name: "read_tool_output",
              arguments: { handle, offset: 20 },
            },
          ],
        };
      }
      return "Read it.";
    });
    const agent = new AgentSession({
      targets: [{ model }],
      session,
      tools: [bigTool],
      toolOutput: { maxChars: 100, excerptChars: 20, dir },
    });

    const { result } = await drain(agent.prompt("Read the big output"));

    expect(result).toMatchObject({ success: true, turns: 3 });
    expect(requests[0]?.tools?.map((tool) => tool.name)).toEqual(["big", "read_tool_output"]);
    const [file] = await readdir(dir);
    const handle = file?.replace(/\.txt$/, "");
    expect(await readFile(join(dir, `${file}`), "utf8")).toBe(digits(1_000));
    expect(messageOf(session, "e3")).toMatchObject({
      role: "toolResult",
      toolName: "big",
      isError: false,
      content: [
        {
          type: "text",
          text: `${digits(20)}\n\n[Output truncated: characters 0-20 of 1000 are shown. The full output is stored as ${handle}; read on with read_tool_output {"handle":"${handle}","offset":20,"limit":100}.]`,
        },
      ],
    });
    expect(messageOf(session, "e5")).toMatchObject({
      role: "toolResult",
      toolName: "read_tool_output",
      isError: false,
      content: [
        {
          type: "text",
          text: `[${handle}: characters 20-120 of 1000; next: read_tool_output {"handle":"${handle}","offset":120}]\n${digits(120).slice(20)}`,
        },
      ],
    });
  });

  it("keeps stored output in a temporary directory of its own until shutdown", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [{ type: "toolCall", id: "c1", name: "big", arguments: {} }] },
      "Seen.",
    ]);
    const previousTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = dir; // os.tmpdir() reads it, so the session's directory lands here
    try {
      const agent = new AgentSession({
        targets: [{ model }],
        session,
        tools: [bigTool],
        toolOutput: { maxChars: 100 },
      });
      await drain(agent.prompt("Go"));
      const [own] = await readdir(dir);
      expect(own).toMatch(/^arbor-tool-output-/);
      expect(await readdir(join(dir, `${own}`))).toEqual([expect.stringMatching(/^out_.*\.txt$/)]);
      await agent.shutdown();
      expect(await readdir(dir)).toEqual([]);
    } finally {
      if (previousTmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmpdir;
    }
  });

  it("leaves short results alone, and adds no tools to a session without tools", async () => {
    const session = await memorySession();
    const model = scripted("alpha", [
      { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 2 } }] },
      "3",
    ]);
    await drain(
      new AgentSession({
        targets: [{ model }],
        session,
        tools: [addTool],
        toolOutput: { dir },
      }).prompt("Add"),
    );
    expect(messageOf(session, "e3").content).toEqual([{ type: "text", text: "3" }]);
    expect(await readdir(dir)).toEqual([]);

    const bare = scripted("beta", ["Hi"]);
    await drain(
      new AgentSession({ targets: [{ model: bare }], session, toolOutput: {} }).prompt("Hello"),
    );
    expect(bare.requests[0]?.tools).toBeUndefined();
  });

  it("refuses a tool of its own named read_tool_output", async () => {
    const session = await memorySession();
    const clash = defineTool({ ...addTool, name: "read_tool_output" });
    expect(
      () =>
        new AgentSession({
          targets: [{ model: scripted("alpha", []) }],
          session,
          tools: [clash],
          toolOutput: {},
        }),
    ).toThrow('a tool is named "read_tool_output", which the tool output cap uses; rename it');
  });
});
