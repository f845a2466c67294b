import type { AgentResult } from "@arbor/turn-runner";
import { ChildRunRefusedError } from "../errors/index.js";
import type { AgentNode } from "./agent-tree.js";
import type {
  AgentOutcome,
  AgentPlace,
  ChildInput,
  ChildOutcomeReport,
  OrchestrationContext,
} from "./orchestration-context.js";
import { responseText } from "./response-text.js";
import { closeRouterTurn } from "./router-tool.js";
import { notRunResult } from "./synthetic-result.js";
import { composeBlocks, type PromptBlock } from "./tagged-blocks.js";

const REQUEST_TAG = "original_user_request";

/**
 * Runs one agent of the orchestration on its session: its advisors in parallel on the
 * user's request, then the agent on its prompt with their answers as tagged blocks beside
 * it; when it handed the request on (a router), the destination with the request and the
 * router's message; then its handoff with the request and the response.
 * @param input - what the agent is sent (for a destination or handoff, a composed prompt)
 * @param request - the user's original request
 */
export async function runPlace(
  context: OrchestrationContext,
  place: AgentPlace,
  input: string,
  request: string,
): Promise<AgentOutcome> {
  const { node } = place;
  const session = place.host.session;
  const prompt =
    node.advisors.length === 0 ? input : await advisedPrompt(context, place, input, request);
  const own = await runOwn(context, place, prompt);
  let outcome: AgentOutcome = {
    result: own,
    finalAgent: place.agentPath,
    finalSession: own.session,
    response: responseText(own, session),
    own,
  };
  const choice = place.router.choice;
  if (choice) {
    await closeRouterTurn(session, choice, context.now);
    const destination = node.destinations.find((d) => d.definition.name === choice.agent);
    const blocks: PromptBlock[] = [{ tag: REQUEST_TAG, text: request }];
    if (choice.message !== undefined && choice.message.trim() !== "") {
      blocks.push({
        tag: "router_message",
        attributes: { from: node.definition.name },
        text: choice.message,
      });
    }
    outcome = await chained(
      context,
      place,
      destination as AgentNode,
      "destination",
      { prompt: composeBlocks(blocks, context.nonce), request },
      { own, from: place.agentPath, message: choice.message },
    );
  }
  if (node.handoff && outcome.result.success && !place.scope.aborted && !place.scope.stopped) {
    const blocks: PromptBlock[] = [
      { tag: REQUEST_TAG, text: request },
      { tag: "response", attributes: { from: outcome.finalAgent }, text: outcome.response },
    ];
    outcome = await chained(
      context,
      place,
      node.handoff,
      "handoff",
      { prompt: composeBlocks(blocks, context.nonce), request },
      { own, from: outcome.finalAgent, message: undefined },
    );
  }
  return outcome;
}

/**
 * Runs a destination or handoff (announced by a `handoff` event); its answer becomes the
 * agent's outcome.
 */
async function chained(
  context: OrchestrationContext,
  place: AgentPlace,
  node: AgentNode,
  role: "destination" | "handoff",
  input: ChildInput,
  handing: { own: AgentResult; from: string; message: string | undefined },
): Promise<AgentOutcome> {
  const { own } = handing;
  context.emit({
    type: "handoff",
    role,
    from: handing.from,
    to: `${place.agentPath}:${node.definition.name}`,
    ...(handing.message !== undefined && handing.message.trim() !== ""
      ? { message: handing.message }
      : {}),
  });
  let report: ChildOutcomeReport;
  try {
    report = await context.runChild(place, node, role, input, place.forward);
  } catch (error) {
    if (!ChildRunRefusedError.isInstance(error)) throw error;
    const result = notRunResult("aborted", error.message, place.host.session);
    return {
      result,
      finalAgent: error.agentPath,
      finalSession: result.session,
      response: responseText(result, undefined),
      own,
    };
  }
  return { ...report, own };
}

/**
 * The prompt with each advisor's answer (or why it has none) as a tagged block beside it;
 * the advisors get the user's request. A prompt that is the request itself is tagged as it.
 */
async function advisedPrompt(
  context: OrchestrationContext,
  place: AgentPlace,
  input: string,
  request: string,
): Promise<string> {
  const blocks = await Promise.all(
    place.node.advisors.map(async (advisor): Promise<PromptBlock> => {
      const name = advisor.definition.name;
      try {
        const report = await context.runChild(
          place,
          advisor,
          "advisor",
          { prompt: request, request },
          false,
        );
        if (report.outcome === "succeeded") {
          return { tag: "advisory", attributes: { agent: name }, text: report.response };
        }
        return failureBlock(name, `${report.outcome}: ${report.message ?? ""}`.trim());
      } catch (error) {
        return failureBlock(name, error instanceof Error ? error.message : String(error));
      }
    }),
  );
  const head: PromptBlock =
    input === request ? { tag: REQUEST_TAG, text: request } : { tag: "task", text: input };
  return composeBlocks([head, ...blocks], context.nonce);
}

function failureBlock(agent: string, why: string): PromptBlock {
  return {
    tag: "advisory",
    attributes: { agent, status: "failed" },
    text: `The advisor ${agent} failed and gave no advice (${why}). Answer without it.`,
  };
}

/** Runs the agent's own prompt, its events forwarded when it makes the answer. */
async function runOwn(
  context: OrchestrationContext,
  place: AgentPlace,
  prompt: string,
): Promise<AgentResult> {
  if (place.scope.aborted) {
    return notRunResult(
      "aborted",
      `${place.agentPath} was aborted before it started`,
      place.host.session,
    );
  }
  const run = place.host.prompt(prompt);
  const untrack = place.scope.track(place.host);
  try {
    if (place.forward) {
      for await (const event of run.events) context.emit(event);
    }
    return await run.result;
  } finally {
    untrack();
  }
}
