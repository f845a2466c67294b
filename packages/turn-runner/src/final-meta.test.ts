import type { AgentCompleteEvent, ExtensionFactory } from "@arbor/extensions-api";
import type { CustomMessageEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentWithExtensions } from "../test/extension-fixtures.js";
import { addTool, drain, label } from "../test/factories.js";
import { ANSWER_FEEDBACK_CUSTOM_TYPE } from "./answer-review.js";
import { FINAL_META_TOOL_NAME } from "./final-meta.js";
import { FINAL_REPORT_TOOL_NAME } from "./final-report.js";

const verdict = z.object({ verdict: z.enum(["pass", "fail"]) });
const sourcesSchema = z.object({ urls: z.array(z.string()).min(1) });

const reportCall = (report: unknown, id = "r1") => ({
  type: "toolCall" as const,
  id,
  name: FINAL_REPORT_TOOL_NAME,
  arguments: { report },
});
const metaCall = (blocks: Record<string, unknown>, id = "m1") => ({
  type: "toolCall" as const,
  id,
  name: FINAL_META_TOOL_NAME,
  arguments: blocks,
});

/** An extension requiring `sources` (and `confidence` when asked) and recording completions. */
function plugin(completed: AgentCompleteEvent[], withConfidence = false): ExtensionFactory {
  return (arbor) => {
    arbor.requireFinalMeta({
      name: "sources",
      description: "The URLs the answer relies on",
      schema: sourcesSchema,
    });
    if (withConfidence) {
      arbor.requireFinalMeta({
        name: "confidence",
        description: "How sure the answer is, 0 to 1",
        schema: z.number().min(0).max(1),
      });
    }
    arbor.on("agent_complete", (event) => void completed.push(structuredClone(event)));
  };
}

type Setup = Awaited<ReturnType<typeof agentWithExtensions>>;
const pathKinds = (session: Setup["session"]) => session.getBranch().map(label);
const toolResultsOnPath = (session: Setup["session"]) =>
  session.getBranch().flatMap((entry) => {
    if (entry.type !== "message") return [];
    const message = (entry as { message: Record<string, unknown> }).message;
    if (message.role !== "toolResult") return [];
    const content = message.content as Array<{ text: string }>;
    return [{ id: message.toolCallId, text: content[0]?.text, isError: message.isError }];
  });
const feedbackTexts = (session: Setup["session"]) =>
  session
    .getEntries()
    .filter(
      (entry): entry is CustomMessageEntry =>
        entry.type === "custom_message" && entry.customType === ANSWER_FEEDBACK_CUSTOM_TYPE,
    )
    .map((entry) => entry.content);

describe("final-report metadata required by extensions", () => {
  it("accepts a report with every required block in the same answer and runs agent_complete once", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            reportCall({ verdict: "pass" }),
            metaCall({ sources: { urls: ["https://a.example"] }, confidence: 0.9 }),
          ],
        },
      ],
      agent: { outputSchema: verdict },
      extensions: { cite: plugin(completed, true) },
    });

    const { result } = await drain(agent.prompt("Check it"));

    expect(result).toMatchObject({
      success: true,
      finalReport: {
        status: "delivered",
        value: { verdict: "pass" },
        entryId: "e2",
        meta: { sources: { urls: ["https://a.example"] }, confidence: 0.9 },
      },
    });
    const offered = model.requests[0]?.tools?.find((tool) => tool.name === FINAL_META_TOOL_NAME);
    expect(offered?.parameters).toMatchObject({
      type: "object",
      properties: {
        sources: { type: "object", description: "The URLs the answer relies on" },
        confidence: { type: "number", description: "How sure the answer is, 0 to 1" },
      },
      additionalProperties: false,
    });
    expect(toolResultsOnPath(session)).toEqual([
      { id: "r1", text: "Final report received.", isError: false },
      { id: "m1", text: "Metadata received: sources, confidence.", isError: false },
    ]);
    expect(completed).toEqual([
      {
        type: "agent_complete",
        report: { verdict: "pass" },
        repaired: false,
        entryId: "e2",
        meta: { sources: { urls: ["https://a.example"] }, confidence: 0.9 },
      },
    ]);
  });

  it("locks a valid report whose metadata is missing and asks for the metadata only", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, session, model } = await agentWithExtensions({
      responses: [
        { blocks: [reportCall({ verdict: "pass" })] },
        // The model tries to change its report: the locked one stands.
        {
          blocks: [
            reportCall({ verdict: "fail" }, "r2"),
            metaCall({ sources: { urls: ["https://b.example"] } }, "m2"),
          ],
        },
      ],
      agent: { outputSchema: verdict },
      extensions: { cite: plugin(completed) },
    });

    const { result, events } = await drain(agent.prompt("Check it"));

    expect(result).toMatchObject({
      success: true,
      turns: 1,
      finalReport: {
        value: { verdict: "pass" },
        entryId: "e2",
        meta: { sources: { urls: ["https://b.example"] } },
      },
    });
    // The report's answer stays on the path with its call answered; the second answer follows.
    expect(pathKinds(session)).toEqual([
      "message:user",
      "message:assistant",
      "message:toolResult",
      `custom_message:${ANSWER_FEEDBACK_CUSTOM_TYPE}`,
      "message:assistant",
      "message:toolResult",
      "message:toolResult",
    ]);
    expect(toolResultsOnPath(session)).toEqual([
      {
        id: "r1",
        text: "Final report received and kept. Metadata missing: sources.",
        isError: false,
      },
      { id: "m2", text: "Metadata received: sources.", isError: false },
      { id: "r2", text: "Not run: the final report ended the task.", isError: true },
    ]);
    expect(feedbackTexts(session)).toEqual([
      "Your final report is received and kept; do not send it again. Call the final_meta tool now with only the missing metadata: sources.",
    ]);
    // The metadata-only request offers nothing but the metadata tool.
    expect(model.requests[1]?.tools?.map((tool) => tool.name)).toEqual([FINAL_META_TOOL_NAME]);
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([
      FINAL_REPORT_TOOL_NAME,
      FINAL_META_TOOL_NAME,
    ]);
    expect(events.filter((event) => event.type === "answer_rejected")).toMatchObject([
      { problems: ["meta_missing"], entryId: "e2" },
    ]);
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ report: { verdict: "pass" }, entryId: "e2" });
  });

  it.each([
    ["a block of the wrong type", { sources: "https://a.example" }, "sources: Invalid input"],
    ["a block missing its field", { sources: {} }, "sources.urls: Invalid input"],
    ["an empty list", { sources: { urls: [] } }, "sources.urls: Too small"],
    ["an unknown block only", { citations: ["x"] }, "citations: not a required metadata block"],
  ])(
    "fails with final_meta_missing when the metadata keeps being %s",
    async (_what, blocks, issue) => {
      const completed: AgentCompleteEvent[] = [];
      const { agent, session, model } = await agentWithExtensions({
        responses: [
          { blocks: [reportCall({ verdict: "pass" }), metaCall(blocks)] },
          { blocks: [metaCall(blocks, "m2")] },
          { blocks: [{ type: "text", text: "I have no sources." }] },
        ],
        agent: { outputSchema: verdict },
        extensions: { cite: plugin(completed) },
      });

      const { result } = await drain(agent.prompt("Check it"));

      expect(result).toMatchObject({ success: false, reason: "final_meta_missing" });
      expect(result.finalReport).toMatchObject({ status: "failed", reason: "final_meta_missing" });
      expect(model.requests).toHaveLength(3);
      expect(completed).toEqual([]);
      // What the model was told names the block and the problem.
      expect(feedbackTexts(session)[0]).toContain(issue);
      // Nothing is lost: the locked report's answer is still stored, on the path.
      expect(session.getBranch().map((entry) => entry.id)).toContain("e2");
      expect(
        session.getEntries().filter((entry) => label(entry) === "message:assistant"),
      ).toHaveLength(3);
    },
  );

  it("keeps a valid block and asks again only for the invalid or missing ones", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, session } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            reportCall({ verdict: "fail" }),
            metaCall({ sources: { urls: ["https://a.example"] }, confidence: 7 }),
          ],
        },
        { blocks: [metaCall({ confidence: 0.4 }, "m2")] },
      ],
      agent: { outputSchema: verdict },
      extensions: { cite: plugin(completed, true) },
    });

    const { result } = await drain(agent.prompt("Check it"));

    expect(result).toMatchObject({
      success: true,
      finalReport: {
        value: { verdict: "fail" },
        meta: { sources: { urls: ["https://a.example"] }, confidence: 0.4 },
      },
    });
    const [feedback] = feedbackTexts(session);
    expect(feedback).toContain("missing metadata: confidence (confidence: Too big");
    expect(feedback).not.toContain("sources");
    expect(toolResultsOnPath(session)[1]).toEqual({
      id: "m1",
      text: expect.stringMatching(
        /^Metadata received: sources\. Rejected: confidence: Too big.*Still missing: confidence\.$/,
      ),
      isError: true,
    });
  });

  it("takes a text answer as the report when no output schema is set", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent } = await agentWithExtensions({
      responses: [
        { blocks: [{ type: "text", text: "Paris." }] },
        { blocks: [metaCall({ sources: { urls: ["https://atlas.example"] } })] },
      ],
      extensions: { cite: plugin(completed) },
    });

    const { result } = await drain(agent.prompt("Capital of France?"));

    expect(result).toMatchObject({
      success: true,
      finalReport: {
        value: "Paris.",
        entryId: "e2",
        meta: { sources: { urls: ["https://atlas.example"] } },
      },
    });
    expect(completed).toMatchObject([{ report: "Paris.", meta: { sources: {} } }]);
  });

  it("counts blocks delivered during the work; metadata alone never ends the run", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, session } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            { type: "toolCall", id: "t1", name: "add", arguments: { a: 1, b: 2 } },
            metaCall({ sources: { urls: ["calc://add"] } }),
          ],
        },
        // Only metadata, no text: the run goes on.
        { blocks: [metaCall({ sources: { urls: ["calc://add", "calc://check"] } }, "m2")] },
        { blocks: [{ type: "text", text: "3" }] },
      ],
      tools: [addTool],
      extensions: { cite: plugin(completed) },
    });

    const { result } = await drain(agent.prompt("1 + 2?"));

    expect(result).toMatchObject({
      success: true,
      turns: 3,
      finalReport: { value: "3", meta: { sources: { urls: ["calc://add", "calc://check"] } } },
    });
    // Calls of one answer run in parallel: results are stored as they finish.
    expect(
      toolResultsOnPath(session)
        .map(({ id }) => id)
        .sort(),
    ).toEqual(["m1", "m2", "t1"]);
    expect(completed).toHaveLength(1);
  });

  it("offers final_meta in a forced final turn and tells the model to call it", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, model } = await agentWithExtensions({
      responses: [
        {
          blocks: [
            { type: "text", text: "Done." },
            metaCall({ sources: { urls: ["https://a.example"] } }),
          ],
        },
      ],
      tools: [addTool],
      agent: { maxTurns: 1 },
      extensions: { cite: plugin(completed) },
    });

    const { result } = await drain(agent.prompt("Sum it"));

    expect(result).toMatchObject({ success: true, finalReport: { value: "Done." } });
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([FINAL_META_TOOL_NAME]);
    expect(JSON.stringify(model.requests[0]?.messages.at(-1))).toContain(
      "Call the final_meta tool in the same answer with the metadata this task requires.",
    );
    expect(completed).toHaveLength(1);
  });

  it("changes nothing when no extension requires metadata", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent, model } = await agentWithExtensions({
      responses: [{ blocks: [reportCall({ verdict: "pass" })] }],
      agent: { outputSchema: verdict },
      extensions: {
        listener: (arbor) =>
          arbor.on("agent_complete", (event) => void completed.push(structuredClone(event))),
      },
    });

    const { result } = await drain(agent.prompt("Check it"));

    expect(result.success).toBe(true);
    expect(result.finalReport).not.toHaveProperty("meta");
    expect(model.requests[0]?.tools?.map((tool) => tool.name)).toEqual([FINAL_REPORT_TOOL_NAME]);
    expect(completed).toEqual([
      {
        type: "agent_complete",
        report: { verdict: "pass" },
        repaired: false,
        entryId: "e2",
        meta: {},
      },
    ]);
  });

  it("does not run agent_complete for a failed run", async () => {
    const completed: AgentCompleteEvent[] = [];
    const { agent } = await agentWithExtensions({
      responses: [{ blocks: [] }, { blocks: [] }, { blocks: [] }],
      extensions: { cite: plugin(completed) },
    });
    const { result } = await drain(agent.prompt("Hi"));
    expect(result).toMatchObject({ success: false, reason: "empty_answer" });
    expect(completed).toEqual([]);
  });
});
