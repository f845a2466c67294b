import { tmpdir } from "node:os";
import { isEntryOfType } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentWithExtensions } from "../../test/extension-fixtures.js";
import { drain, messageOf, shape } from "../../test/factories.js";
import { defineTool } from "../agent-tool.js";

const kinds = (session: Parameters<typeof shape>[0]) => shape(session).map(([, kind]) => kind);

describe("AgentSession with extensions: return values change what happens", () => {
  it("before_agent_start: adds a message before the prompt and replaces the system prompt for that prompt only", async () => {
    const { agent, session, model } = await agentWithExtensions({
      responses: ["One", "Two"],
      systemPrompt: "Be brief.",
      extensions: {
        persona: (arbor) =>
          arbor.on("before_agent_start", (event) =>
            event.prompt === "first"
              ? {
                  message: {
                    customType: "note",
                    content: "The user is in a hurry.",
                    display: false,
                  },
                  systemPrompt: `${event.systemPrompt} Talk like a pirate.`,
                }
              : undefined,
          ),
      },
    });

    await drain(agent.prompt("first"));
    await drain(agent.prompt("second"));

    // Each run records the system prompt it sent when it changed: the pirate one, then back.
    expect(kinds(session)).toEqual([
      "custom_message:note",
      "custom:arbor.system-prompt",
      "message:user",
      "message:assistant",
      "custom:arbor.system-prompt",
      "message:user",
      "message:assistant",
    ]);
    expect(model.requests[0]?.system).toBe("Be brief. Talk like a pirate.");
    expect(model.requests[0]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "The user is in a hurry." }] },
      { role: "user", content: "first" },
    ]);
    expect(model.requests[1]?.system).toBe("Be brief.");
  });

  it("context: replaces the messages of one model call, never the session", async () => {
    let calls = 0;
    const { agent, session, model } = await agentWithExtensions({
      responses: ["One", "Two"],
      extensions: {
        redactor: (arbor) =>
          arbor.on("context", (event) => {
            calls++;
            if (calls > 1) return undefined;
            return {
              messages: event.messages.map((message) => ({ ...message, content: "[redacted]" })),
            };
          }),
      },
    });

    await drain(agent.prompt("my password is hunter2"));
    await drain(agent.prompt("and now?"));

    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "[redacted]" }]);
    expect(messageOf(session, "e1").content).toBe("my password is hunter2");
    expect(model.requests[1]?.messages.map((m) => m.content)).toEqual([
      "my password is hunter2",
      [{ type: "text", text: "One" }],
      "and now?",
    ]);
  });

  it("tool_call: a block stores an error result with the reason and the tool never runs", async () => {
    const ran: unknown[] = [];
    const write = defineTool({
      name: "write",
      description: "Writes a file",
      parameters: z.object({ path: z.string() }),
      execute: (args) => {
        ran.push(args);
        return "written";
      },
    });
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            { type: "toolCall", id: "c1", name: "write", arguments: { path: "/etc/passwd" } },
            { type: "toolCall", id: "c2", name: "write", arguments: { path: "notes.md" } },
          ],
        },
        "Done",
      ],
      tools: [write],
      extensions: {
        guard: (arbor) =>
          arbor.on("tool_call", (event) =>
            String(event.input.path).startsWith("/etc")
              ? { block: true, reason: "system files are off limits" }
              : undefined,
          ),
      },
    });

    await drain(agent.prompt("Write things"));

    expect(ran).toEqual([{ path: "notes.md" }]);
    const results = session
      .getEntries()
      .flatMap((entry) =>
        isEntryOfType(entry, "message") && entry.message.role === "toolResult"
          ? [entry.message]
          : [],
      );
    expect(results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          toolCallId: "c1",
          isError: true,
          content: [{ type: "text", text: "system files are off limits" }],
        }),
        expect.objectContaining({ toolCallId: "c2", isError: false }),
      ]),
    );
    const sent = model.requests[1]?.messages.filter((m) => m.role === "toolResult");
    expect(sent).toContainEqual(expect.objectContaining({ toolCallId: "c1", isError: true }));
  });

  it("tool_result: replaces content, error flag and details before the result is stored and sent", async () => {
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 2, b: 2 } }] },
        "Four",
      ],
      tools: [
        defineTool({
          name: "add",
          description: "Adds",
          parameters: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => String(a + b),
        }),
      ],
      extensions: {
        annotate: (arbor) =>
          arbor.on("tool_result", (event) => ({
            content: [
              { type: "text", text: `${(event.content[0] as { text: string }).text} (checked)` },
            ],
            details: { checkedBy: "annotate" },
          })),
      },
    });

    await drain(agent.prompt("2 + 2?"));

    expect(messageOf(session, "e3")).toMatchObject({
      role: "toolResult",
      content: [{ type: "text", text: "4 (checked)" }],
      isError: false,
      details: { checkedBy: "annotate" },
    });
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({
      role: "toolResult",
      content: [{ type: "text", text: "4 (checked)" }],
    });
  });

  it("tool_result: can turn a success into an error the model is told about", async () => {
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 1 } }] },
        "Hmm",
      ],
      tools: [
        defineTool({
          name: "add",
          description: "Adds",
          parameters: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => String(a + b),
        }),
      ],
      extensions: {
        strict: (arbor) =>
          arbor.on("tool_result", () => ({
            isError: true,
            content: [{ type: "text", text: "results of add are not trusted today" }],
          })),
      },
    });
    await drain(agent.prompt("1 + 1?"));
    expect(messageOf(session, "e3")).toMatchObject({ isError: true });
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
  });

  it("registerTool: the model is offered the extension's tool and its result is stored with details", async () => {
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            { type: "toolCall", id: "c1", name: "word_count", arguments: { text: "a b c" } },
            { type: "toolCall", id: "c2", name: "word_count", arguments: { text: 42 } },
          ],
        },
        "Three words",
      ],
      extensions: {
        words: (arbor) =>
          arbor.registerTool({
            name: "word_count",
            description: "Counts words",
            parameters: z.object({ text: z.string() }),
            execute: async ({ text }, ctx) => ({
              content: String(text.split(/\s+/).length),
              details: { toolCallId: ctx.toolCallId },
            }),
          }),
      },
    });

    await drain(agent.prompt("Count"));

    expect(model.requests[0]?.tools).toEqual([
      {
        name: "word_count",
        description: "Counts words",
        parameters: expect.objectContaining({ properties: { text: { type: "string" } } }),
      },
    ]);
    expect(kinds(session)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      "message:toolResult",
      "message:assistant",
    ]);
    const results = ["e3", "e4"].map((id) => messageOf(session, id));
    const byCall = Object.fromEntries(results.map((r) => [r.toolCallId, r]));
    expect(byCall.c1).toMatchObject({
      content: [{ type: "text", text: "3" }],
      isError: false,
      details: { toolCallId: "c1" },
    });
    expect(byCall.c2).toMatchObject({ isError: true });
    expect(JSON.stringify(byCall.c2?.content)).toContain("invalid arguments for word_count");
  });

  it("an extension tool can run a program with exec, under the agent's abort signal", async () => {
    const { agent, session } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "toolCall", id: "c1", name: "node_version", arguments: {} }] },
        "Done",
      ],
      extensions: {
        runner: (arbor) =>
          arbor.registerTool({
            name: "node_version",
            description: "The version of the Node.js running Arbor",
            parameters: z.object({}),
            execute: async (_args, ctx) => {
              const result = await arbor.exec(
                process.execPath,
                ["-e", "process.stdout.write(process.version)"],
                {
                  // The fixture's project directory does not exist on disk.
                  cwd: tmpdir(),
                  timeoutMs: 10_000,
                  ...(ctx.signal ? { signal: ctx.signal } : {}),
                },
              );
              return { content: result.stdout, details: { code: result.code } };
            },
          }),
      },
    });

    await drain(agent.prompt("Which node?"));

    expect(messageOf(session, "e3")).toMatchObject({
      content: [{ type: "text", text: process.version }],
      details: { code: 0 },
    });
  });

  it("an agent tool shadows an extension tool of the same name", async () => {
    const { agent, model } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "toolCall", id: "c1", name: "add", arguments: { a: 1, b: 1 } }] },
        "2",
      ],
      tools: [
        defineTool({
          name: "add",
          description: "The agent's add",
          parameters: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => String(a + b),
        }),
      ],
      extensions: {
        other: (arbor) =>
          arbor.registerTool({
            name: "add",
            description: "The extension's add",
            parameters: z.object({}),
            execute: () => ({ content: "wrong" }),
          }),
      },
    });
    await drain(agent.prompt("1 + 1"));
    expect(model.requests[0]?.tools?.map((tool) => tool.description)).toEqual(["The agent's add"]);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ content: [{ text: "2" }] });
  });
});
