import type { AgentResult, ModelRequest } from "@arbor/orchestration";
import type {
  AgentScenario,
  ExpectedRequest,
  ExpectedResult,
  ExpectedTree,
} from "./agent-scenario-schema.js";
import { checkExtensionExpectations, type ExtensionLog } from "./scenario-extensions.js";
import type { ToolCallLog } from "./scenario-tools.js";
import { matchesSubset } from "./subset-match.js";
import type { TreeSummary } from "./tree-summary.js";

/** What an agent scenario observed (see `runAgentScenario`), checked against its `expect`. */
/** What running an agent scenario observed, before it is compared with `expect`. */
export interface AgentObservation {
  results: AgentResult[];
  /** Event types of each prompt, in order. */
  events: string[][];
  calls: number[];
  /** The requests a scripted target received; undefined for the adapters' targets. */
  requests(target: number): readonly ModelRequest[] | undefined;
  tools: ToolCallLog;
  waits: number[];
  /** The tree as reopened from the session file after the last prompt. */
  tree: TreeSummary;
  durationMs: number;
  /** What the extensions saw and did, when the scenario loads extensions. */
  extensions?: ExtensionLog;
}

/** Records a failure when `expected` and `actual` differ (as JSON). */
export type Mismatch = (what: string, expected: unknown, actual: unknown) => void;

/** A {@link Mismatch} that adds a line to `failures` when the two differ as JSON. */
export function mismatchInto(failures: string[]): Mismatch {
  return (what, expected, actual) => {
    if (JSON.stringify(expected) !== JSON.stringify(actual)) {
      failures.push(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
    }
  };
}

/** Event types with runs of the same delta type collapsed to one. */
export function collapseDeltas(types: readonly string[]): string[] {
  const collapsed: string[] = [];
  for (const type of types) {
    if (type.endsWith("_delta") && collapsed.at(-1) === type) continue;
    collapsed.push(type);
  }
  return collapsed;
}

/** Compares one result object with its expected fields. */
export function checkResult(
  what: string,
  expected: ExpectedResult,
  actual: AgentResult | undefined,
  mismatch: Mismatch,
  failures: string[],
): void {
  if (!actual) {
    failures.push(`${what}: no result (the run rejected or never ran)`);
    return;
  }
  const loose = actual as AgentResult & { finalReport?: unknown };
  if (expected.success !== undefined) mismatch(`${what}.success`, expected.success, loose.success);
  if (expected.reason !== undefined) mismatch(`${what}.reason`, expected.reason, loose.reason);
  if (expected.turns !== undefined) mismatch(`${what}.turns`, expected.turns, loose.turns);
  if (expected.usage !== undefined && !matchesSubset(expected.usage, loose.usage)) {
    mismatch(`${what}.usage`, expected.usage, loose.usage);
  }
  if (expected.cost !== undefined && Math.abs(expected.cost - loose.cost) > 1e-9) {
    mismatch(`${what}.cost`, expected.cost, loose.cost);
  }
  if (
    expected.finalReport !== undefined &&
    !matchesSubset(expected.finalReport, loose.finalReport)
  ) {
    mismatch(`${what}.finalReport`, expected.finalReport, loose.finalReport);
  }
  if (expected.messageContains !== undefined && !loose.message?.includes(expected.messageContains))
    failures.push(
      `${what}.message: expected to contain ${JSON.stringify(expected.messageContains)}, got ${JSON.stringify(loose.message)}`,
    );
}

/** Compares a session tree with its expected shape. */
export function checkTree(
  expected: ExpectedTree,
  tree: TreeSummary,
  mismatch: Mismatch,
  failures: string[],
): void {
  if (expected.path !== undefined) mismatch("tree.path", expected.path, tree.path);
  if (expected.abortedSiblings !== undefined) {
    mismatch("tree.abortedSiblings", expected.abortedSiblings, tree.abortedSiblings);
  }
  if (expected.entries !== undefined) mismatch("tree.entries", expected.entries, tree.entries);
  if (expected.custom !== undefined) {
    const types = new Set(expected.custom.map((entry) => entry.customType));
    const actual = tree.custom.filter((entry) => types.has(entry.customType));
    const matches =
      actual.length === expected.custom.length &&
      expected.custom.every((entry, i) => matchesSubset(entry, actual[i]));
    if (!matches) mismatch("tree.custom", expected.custom, actual);
  }
  if (expected.ttsrInjections !== undefined) {
    const matches =
      tree.ttsrInjections.length === expected.ttsrInjections.length &&
      expected.ttsrInjections.every((record, i) => matchesSubset(record, tree.ttsrInjections[i]));
    if (!matches) mismatch("tree.ttsrInjections", expected.ttsrInjections, tree.ttsrInjections);
  }
  for (const piece of expected.lastAnswerContains ?? []) {
    if (!tree.lastAnswer.includes(piece))
      failures.push(
        `tree.lastAnswer: expected to contain ${JSON.stringify(piece)}, got ${JSON.stringify(tree.lastAnswer)}`,
      );
  }
  if (expected.title !== undefined) mismatch("tree.title", expected.title, tree.title);
  if (expected.toolResultsContain !== undefined) {
    const ok =
      tree.toolResults.length === expected.toolResultsContain.length &&
      expected.toolResultsContain.every((piece, i) => tree.toolResults[i]?.includes(piece));
    if (!ok) mismatch("tree.toolResultsContain", expected.toolResultsContain, tree.toolResults);
  }
}

/** Compares one request a scripted target received with its expected fields. */
export function checkRequest(
  expected: ExpectedRequest,
  observed: Pick<AgentObservation, "requests">,
  mismatch: Mismatch,
  failures: string[],
): void {
  const what = `requests[target ${expected.target}, call ${expected.call}]`;
  const requests = observed.requests(expected.target);
  if (requests === undefined) {
    failures.push(`${what}: only scripted targets record their requests`);
    return;
  }
  const request = requests.at(expected.call);
  if (!request) {
    failures.push(`${what}: the target received ${requests.length} request(s)`);
    return;
  }
  const last = request.messages.at(-1);
  if (expected.roles !== undefined) {
    mismatch(
      `${what}.roles`,
      expected.roles,
      request.messages.map((message) => message.role),
    );
  }
  if (expected.tools !== undefined) {
    mismatch(
      `${what}.tools`,
      expected.tools,
      (request.tools ?? []).map((tool) => tool.name),
    );
  }
  if (expected.reasoning !== undefined) {
    mismatch(`${what}.reasoning`, expected.reasoning, request.reasoning);
  }
  const parts = typeof last?.content === "string" ? [] : (last?.content ?? []);
  if (expected.images !== undefined) {
    const images = parts.filter((part) => part.type === "image").length;
    mismatch(`${what}.images`, expected.images, images);
  }
  if (expected.lastMessageContains !== undefined) {
    const text =
      typeof last?.content === "string"
        ? last.content
        : parts.map((part) => (part.type === "text" ? part.text : "")).join("");
    if (!text.includes(expected.lastMessageContains))
      failures.push(
        `${what}.lastMessage: expected to contain ${JSON.stringify(expected.lastMessageContains)}, got ${JSON.stringify(text)}`,
      );
  }
  const texts = request.messages.map((message) =>
    typeof message.content === "string"
      ? message.content
      : message.content.map((part) => (part.type === "text" ? part.text : "")).join(""),
  );
  for (const piece of expected.messagesContain ?? []) {
    if (!texts.some((text) => text.includes(piece)))
      failures.push(
        `${what}.messages: expected one to contain ${JSON.stringify(piece)}, got ${JSON.stringify(texts)}`,
      );
  }
  if (expected.systemContains !== undefined && !request.system?.includes(expected.systemContains))
    failures.push(
      `${what}.system: expected to contain ${JSON.stringify(expected.systemContains)}, got ${JSON.stringify(request.system)}`,
    );
}

/** Compares what an agent scenario observed with its `expect`; returns one line per mismatch. */
export function checkAgentExpectations(
  scenario: AgentScenario,
  observed: AgentObservation,
): string[] {
  const { expect } = scenario;
  const failures: string[] = [];
  const mismatch = mismatchInto(failures);
  if (expect.result !== undefined) {
    checkResult("result", expect.result, observed.results.at(-1), mismatch, failures);
  }
  if (expect.results !== undefined) {
    mismatch("results.length", expect.results.length, observed.results.length);
    expect.results.forEach((expected, i) => {
      checkResult(`results[${i}]`, expected, observed.results[i], mismatch, failures);
    });
  }
  if (expect.tree !== undefined) checkTree(expect.tree, observed.tree, mismatch, failures);
  const lastEvents = observed.events.at(-1) ?? [];
  if (expect.events !== undefined) mismatch("events", expect.events, collapseDeltas(lastEvents));
  for (const type of expect.eventsInclude ?? []) {
    if (!lastEvents.includes(type)) failures.push(`events: expected a ${type} event, got none`);
  }
  for (const type of expect.eventsExclude ?? []) {
    if (observed.events.some((events) => events.includes(type)))
      failures.push(`events: expected no ${type} event, got one`);
  }
  if (expect.calls !== undefined) mismatch("calls", expect.calls, observed.calls);
  if (expect.toolCalls !== undefined) {
    const withArgs = expect.toolCalls.some((call) => call.includes("("));
    const started = withArgs
      ? observed.tools.started
      : observed.tools.started.map((call) => call.slice(0, call.indexOf("(")));
    mismatch("toolCalls", expect.toolCalls, started);
  }
  if (expect.toolsFinished !== undefined) {
    const finished = observed.tools.finished.map((call) => call.slice(0, call.indexOf("(")));
    mismatch("toolsFinished", expect.toolsFinished, finished);
  }
  if (expect.maxConcurrentTools !== undefined) {
    mismatch("maxConcurrentTools", expect.maxConcurrentTools, observed.tools.maxConcurrent);
  }
  for (const request of expect.requests ?? []) checkRequest(request, observed, mismatch, failures);
  if (expect.waits !== undefined) mismatch("waits", expect.waits, observed.waits);
  if (expect.extensions !== undefined) {
    if (observed.extensions === undefined)
      failures.push("extensions: expected, but the scenario loads none (agent.extensions)");
    else failures.push(...checkExtensionExpectations(expect.extensions, observed.extensions));
  }
  if (expect.maxDurationMs !== undefined && observed.durationMs > expect.maxDurationMs) {
    failures.push(
      `duration: expected at most ${expect.maxDurationMs} ms, took ${observed.durationMs.toFixed(0)} ms`,
    );
  }
  return failures;
}
