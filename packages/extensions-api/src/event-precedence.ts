import type { CustomMessageInput } from "./content.js";
import type {
  BeforeAgentStartResult,
  ContextResult,
  ExtensionEventOutcomeMap,
  SessionBeforeCompactOutcome,
  SessionBeforeCompactResult,
  SessionBeforeTreeResult,
  SummaryHookOutcome,
  ToolCallResult,
  ToolResultResult,
} from "./event-results.js";
import type { ExtensionEvent, ExtensionEventMap, ExtensionEventName } from "./events.js";

/**
 * How the results of an event's handlers combine. `current` is the event the next handler
 * sees (a shallow copy, with earlier replacements applied); `apply` takes one handler's
 * validated result and says whether the chain stops; `outcome` is what `emit` returns.
 */
export interface EventFold<K extends ExtensionEventName> {
  current(): ExtensionEventMap[K];
  apply(result: unknown, extensionName: string): "continue" | "stop";
  outcome(): ExtensionEventOutcomeMap[K];
}

/** Starts the fold of one emitted event. */
export function startFold<K extends ExtensionEventName>(event: ExtensionEventMap[K]): EventFold<K> {
  return foldFor(event as ExtensionEvent) as unknown as EventFold<K>;
}

function foldFor(event: ExtensionEvent): EventFold<ExtensionEventName> {
  switch (event.type) {
    case "before_agent_start": {
      const state = { ...event };
      const messages: CustomMessageInput[] = [];
      return fold(
        () => ({ ...state }),
        (result: BeforeAgentStartResult) => {
          if (result.message) messages.push(result.message);
          if (result.systemPrompt !== undefined) state.systemPrompt = result.systemPrompt;
          return "continue";
        },
        () => ({ messages, systemPrompt: state.systemPrompt }),
      );
    }
    case "context": {
      const state = { ...event };
      let changed = false;
      return fold(
        () => ({ ...state }),
        (result: ContextResult) => {
          if (result.messages) {
            state.messages = result.messages;
            changed = true;
          }
          return "continue";
        },
        () => ({ messages: state.messages, changed }),
      );
    }
    case "tool_call": {
      let blocked: { reason: string; extensionName: string } | undefined;
      return fold(
        () => ({ ...event }),
        (result: ToolCallResult, extensionName) => {
          if (!result.block) return "continue";
          blocked = {
            reason: result.reason ?? `blocked by extension ${extensionName}`,
            extensionName,
          };
          return "stop";
        },
        () => (blocked ? { blocked: true as const, ...blocked } : { blocked: false as const }),
      );
    }
    case "tool_result": {
      const state = { ...event };
      let changed = false;
      return fold(
        () => ({ ...state }),
        (result: ToolResultResult) => {
          if (result.content !== undefined) state.content = result.content;
          if (result.isError !== undefined) state.isError = result.isError;
          if ("details" in result) state.details = result.details;
          changed ||= Object.keys(result).length > 0;
          return "continue";
        },
        () => ({ content: state.content, isError: state.isError, details: state.details, changed }),
      );
    }
    case "session_before_compact": {
      const state: typeof event = { ...event };
      let cancelledBy: string | undefined;
      let supplier: string | undefined;
      let promptChanged = false;
      return fold(
        () => ({ ...state }),
        (result: SessionBeforeCompactResult, extensionName) => {
          if (result.cancel) {
            cancelledBy = extensionName;
            return "stop";
          }
          if (result.prompt !== undefined) {
            state.prompt = result.prompt;
            promptChanged = true;
          }
          if (result.summary !== undefined) {
            state.summary = result.summary;
            state.details = result.details;
            supplier = extensionName;
          }
          return "continue";
        },
        (): SessionBeforeCompactOutcome => {
          if (cancelledBy !== undefined) return { cancelled: true, extensionName: cancelledBy };
          const prompt = promptChanged ? { prompt: state.prompt } : {};
          if (supplier === undefined) return { cancelled: false, ...prompt };
          return {
            cancelled: false,
            summary: state.summary,
            details: state.details,
            extensionName: supplier,
            ...prompt,
          };
        },
      );
    }
    case "session_before_tree": {
      const state: typeof event = { ...event };
      let cancelledBy: string | undefined;
      let supplier: string | undefined;
      return fold(
        () => ({ ...state }),
        (result: SessionBeforeTreeResult, extensionName) => {
          if (result.cancel) {
            cancelledBy = extensionName;
            return "stop";
          }
          if (result.summary !== undefined) {
            state.summary = result.summary;
            state.details = result.details;
            supplier = extensionName;
          }
          return "continue";
        },
        (): SummaryHookOutcome => {
          if (cancelledBy !== undefined) return { cancelled: true, extensionName: cancelledBy };
          if (supplier === undefined) return { cancelled: false };
          return {
            cancelled: false,
            summary: state.summary,
            details: state.details,
            extensionName: supplier,
          };
        },
      );
    }
    default:
      return fold(
        () => ({ ...event }),
        () => "continue",
        () => undefined,
      );
  }
}

function fold<E, R>(
  current: () => E,
  apply: (result: R, extensionName: string) => "continue" | "stop",
  outcome: () => unknown,
): EventFold<ExtensionEventName> {
  return {
    current: current as () => never,
    apply: (result, extensionName) => apply(result as R, extensionName),
    outcome: outcome as () => never,
  };
}
