import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { drain, memorySession, recordingSleep, scripted } from "../test/factories.js";
import { type RecordedSpan, recordingProvider } from "../test/recording-tracer.js";
import { AgentSession } from "./agent-session.js";
import { defineTool } from "./agent-tool.js";

const ANCESTRY_ATTRIBUTES = [
  "arbor.run.id",
  "arbor.session.id",
  "arbor.origin.id",
  "arbor.parent.id",
  "arbor.agent.path",
];

/** The span table of the README: per span kind, its name pattern and its attributes. */
async function documentedSpans(): Promise<Array<{ name: RegExp; attributes: string[] }>> {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const table = readme.split("<!-- spans:start -->")[1]?.split("<!-- spans:end -->")[0] ?? "";
  const rows = table
    .trim()
    .split("\n")
    .slice(2)
    .map((row) => row.split("|").map((cell) => cell.trim()));
  return rows.map(([, , name = "", attributes = ""]) => ({
    // `chat <model id>` documents a name with a variable part.
    name: new RegExp(
      `^${name
        .replaceAll("`", "")
        .split(/<[^>]+>/)
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".+")}$`,
    ),
    attributes: [...attributes.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string),
  }));
}

const fails = defineTool({
  name: "fails",
  description: "Always throws",
  parameters: z.object({}),
  execute: () => {
    throw new Error("broken");
  },
});
const echo = defineTool({
  name: "echo",
  description: "Echoes",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

/** Runs that between them reach every documented attribute: success, failures, a child run. */
async function tracedRuns(): Promise<RecordedSpan[]> {
  const { spans, tracerProvider } = recordingProvider();
  const { sleep } = recordingSleep();
  const telemetry = { tracerProvider };
  const call = (id: string, name: string, args: Record<string, unknown>) => ({
    type: "toolCall" as const,
    id,
    name,
    arguments: args,
  });
  const child = new AgentSession({
    targets: [
      {
        model: scripted("alpha", [
          { error: { kind: "timeout" } },
          { blocks: [call("c1", "fails", {}), call("c2", "echo", { text: "x" })] },
          "done",
        ]),
      },
    ],
    session: await memorySession(),
    tools: [fails, echo],
    sleep,
    telemetry,
    ancestry: { originId: "origin-1", parentId: "parent-1", agentPath: "main:child" },
  });
  expect((await drain(child.prompt("go"))).result.success).toBe(true);
  const limited = new AgentSession({
    targets: [{ model: scripted("alpha", [{ blocks: [call("c3", "echo", { text: "y" })] }]) }],
    session: await memorySession(),
    tools: [echo],
    maxTurns: 1,
    maxAnswerRetries: 0,
    telemetry,
  });
  expect((await drain(limited.prompt("go"))).result).toMatchObject({ reason: "max_turns" });
  return spans;
}

describe("the documented spans", () => {
  it("are the spans emitted, each with exactly the documented attributes and the ancestry", async () => {
    const documented = await documentedSpans();
    expect(documented.map((span) => String(span.name))).toEqual([
      "/^arbor\\.prompt$/",
      "/^arbor\\.turn$/",
      "/^chat .+$/",
      "/^execute_tool .+$/",
    ]);
    const spans = await tracedRuns();
    const seen = documented.map(() => new Set<string>());
    for (const span of spans) {
      const kind = documented.findIndex((doc) => doc.name.test(span.name));
      expect(kind, `span ${span.name} is documented`).toBeGreaterThanOrEqual(0);
      for (const key of Object.keys(span.attributes)) seen[kind]?.add(key);
      expect(span.attributes["arbor.run.id"]).toEqual(expect.any(String));
      expect(span.attributes["arbor.agent.path"]).toMatch(/^main/);
    }
    documented.forEach((doc, kind) => {
      expect([...(seen[kind] ?? [])].sort(), String(doc.name)).toEqual(
        [...doc.attributes, ...ANCESTRY_ATTRIBUTES].sort(),
      );
    });
  });

  it("puts the ancestry a host gives on every span of the run, and the run's own ids", async () => {
    const spans = await tracedRuns();
    const child = spans.filter((span) => span.attributes["arbor.agent.path"] === "main:child");
    const top = spans.filter((span) => span.attributes["arbor.agent.path"] === "main");
    expect(child.length).toBeGreaterThan(5);
    expect(top.length).toBeGreaterThan(2);
    for (const span of child) {
      expect(span.attributes).toMatchObject({
        "arbor.origin.id": "origin-1",
        "arbor.parent.id": "parent-1",
      });
    }
    for (const span of top) {
      expect(span.attributes).not.toHaveProperty("arbor.parent.id");
      expect(span.attributes["arbor.origin.id"]).toBe(span.attributes["arbor.run.id"]);
    }
    const [prompt] = top;
    expect(prompt?.attributes).toMatchObject({
      "arbor.result.success": false,
      "arbor.final_report.status": "failed",
      "arbor.result.reason": "max_turns",
      "error.type": "max_turns",
    });
    expect(child[0]?.attributes).toMatchObject({
      "arbor.result.success": true,
      "arbor.result.turns": 2,
      "arbor.final_report.status": "delivered",
    });
  });
});
