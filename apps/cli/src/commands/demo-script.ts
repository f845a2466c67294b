import type { TtsrRuleInput } from "@arbor/orchestration";
import { type AgentTool, defineTool } from "@arbor/orchestration";
import type { ScriptedResponseInput } from "@arbor/orchestration/test";
import { z } from "zod";

/** The stream rule the demo's second answer breaks. */
export const DEMO_RULE: TtsrRuleInput = {
  name: "use-the-logger",
  content: "This project logs through `logger` from src/log.ts; never call console.log.",
  condition: "console\\.log",
};

/** The small project the demo's tool reads from (kept in memory: the demo writes nothing there). */
const DEMO_FILES: Readonly<Record<string, string>> = {
  "NOTES.md": "# Notes\n\n- The server must log when it starts.\n- Use the logger in src/log.ts.\n",
};

/** The demo's `read_file` tool, reading the in-memory project. */
export const demoReadFileTool = defineTool({
  name: "read_file",
  description: "Reads a file of the project.",
  parameters: z.object({ path: z.string() }),
  execute: ({ path }) => {
    const text = DEMO_FILES[path];
    if (text === undefined) throw new Error(`${path} does not exist`);
    return text;
  },
}) as unknown as AgentTool;

/** One step of the demo: a prompt and what the fake server answers to it. */
export interface DemoStep {
  prompt: string;
  responses: ScriptedResponseInput[];
}

/** The prompts of the demo and the fake server's answers, in call order. */
export const DEMO_STEPS = {
  toolCall: {
    prompt: "What do the project notes ask for?",
    responses: [
      {
        blocks: [
          {
            type: "toolCall",
            id: "call_notes",
            name: "read_file",
            arguments: { path: "NOTES.md" },
          },
        ],
      },
      {
        blocks: [
          {
            type: "text",
            text: "The notes ask for a log line when the server starts, written through the logger in src/log.ts.",
          },
        ],
        chunkSize: 12,
        usage: { input: 220, output: 24 },
      },
    ],
  },
  streamRule: {
    prompt: "Show me the line that logs the start.",
    responses: [
      {
        blocks: [
          {
            type: "text",
            text: 'Add this after listen():\n\n```ts\nconsole.log("listening on", port);\n```\n',
          },
        ],
        chunkSize: 6,
        usage: { input: 260, output: 20 },
      },
      {
        blocks: [
          {
            type: "text",
            text: 'Add this after listen():\n\n```ts\nlogger.info({ port }, "server started");\n```\n',
          },
        ],
        chunkSize: 12,
        usage: { input: 320, output: 22 },
      },
    ],
  },
  branch: {
    prompt: "Instead: which log level should the start line use?",
    responses: [
      {
        blocks: [
          {
            type: "text",
            text: "Use info: starting is a normal event operators want to see, not a warning.",
          },
        ],
        chunkSize: 12,
        usage: { input: 240, output: 18 },
      },
    ],
  },
} satisfies Record<string, DemoStep>;

/** What the fake server answers when the demo asks for a compaction summary. */
export const DEMO_COMPACTION_SUMMARY: ScriptedResponseInput = {
  blocks: [
    {
      type: "text",
      text: "## Goal\nLog the server start.\n\n## Done\n- Read NOTES.md: log the start through the logger in src/log.ts.\n- Settled on level info.",
    },
  ],
  usage: { input: 400, output: 40 },
};
