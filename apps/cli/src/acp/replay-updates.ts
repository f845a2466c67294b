import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { isEntryOfType, type SessionEntry } from "@arbor/session-store";
import { messageOf, textOfBlocks, toolCallsOf } from "./stored-messages.js";
import { resultContent, toolCallView } from "./tool-call-view.js";

/** The thought shown when stream rules interrupted an answer. */
export function ruleInterruptThought(rules: readonly string[]): string {
  const names = rules.map((name) => `"${name}"`).join(", ");
  return `Stream rule ${names} interrupted the answer; it is retried with the rule's reminder.\n`;
}

/**
 * The `session/update`s that show a path of a session (root to leaf) as it was streamed:
 * the user's messages, the agent's thoughts and answers, each tool call with its final
 * status and content, and the stream rules that interrupted an answer.
 */
export function* replayUpdates(
  path: readonly SessionEntry[],
  cwd: string,
): Generator<SessionUpdate> {
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const entry of path) {
    if (isEntryOfType(entry, "ttsr_injection")) {
      const rules = entry.injectedRules.map((record) => record.rule);
      yield thought(ruleInterruptThought(rules));
      continue;
    }
    const message = messageOf(entry);
    if (!message) continue;
    if (message.role === "user") {
      const text = textOfBlocks(message.blocks);
      if (text !== "") {
        yield { sessionUpdate: "user_message_chunk", content: { type: "text", text } };
      }
      continue;
    }
    if (message.role === "assistant") {
      for (const block of message.blocks) {
        if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking) {
          yield thought(block.thinking);
        } else if (block.type === "text" && typeof block.text === "string" && block.text) {
          yield {
            sessionUpdate: "agent_message_chunk",
            content: { type: "text", text: block.text },
          };
        }
      }
      for (const call of toolCallsOf(message.blocks)) {
        calls.set(call.id, { name: call.name, args: call.arguments });
        const view = toolCallView(call.name, call.arguments, cwd);
        yield {
          sessionUpdate: "tool_call",
          toolCallId: call.id,
          ...view,
          status: "pending",
          rawInput: call.arguments,
        };
      }
      continue;
    }
    if (message.role === "toolResult" && typeof message.raw.toolCallId === "string") {
      yield toolResultUpdate(
        message.raw.toolCallId,
        calls.get(message.raw.toolCallId),
        textOfBlocks(message.blocks),
        message.raw.isError === true,
        cwd,
      );
    }
  }
}

/** The update that ends a tool call: its status and its result after the call's own view. */
export function toolResultUpdate(
  toolCallId: string,
  call: { name: string; args: unknown } | undefined,
  text: string,
  isError: boolean,
  cwd: string,
): SessionUpdate {
  const view = call ? toolCallView(call.name, call.args, cwd).content : [];
  return {
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: isError ? "failed" : "completed",
    content: [...view, ...resultContent(text)],
  };
}

function thought(text: string): SessionUpdate {
  return { sessionUpdate: "agent_thought_chunk", content: { type: "text", text } };
}
