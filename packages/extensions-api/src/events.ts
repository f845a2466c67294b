/**
 * The names of every event an extension can subscribe to, in the order a prompt meets them.
 * Names are snake_case, as plugin authors know them from pi.
 */
export const EXTENSION_EVENT_NAMES = [
  "session_start",
  "before_agent_start",
  "context",
  "before_provider_request",
  "turn_start",
  "message_start",
  "message_update",
  "message_end",
  "tool_call",
  "tool_result",
  "turn_end",
  "ttsr_triggered",
  "model_select",
  "session_before_compact",
  "session_compact",
  "session_before_tree",
  "session_tree",
  "session_shutdown",
] as const;

/** One of {@link EXTENSION_EVENT_NAMES}. */
export type ExtensionEventName = (typeof EXTENSION_EVENT_NAMES)[number];

const eventNames: ReadonlySet<string> = new Set(EXTENSION_EVENT_NAMES);

/**
 * Tells whether a string names an extension event.
 * @param name - a name from user input or a loaded extension
 */
export function isExtensionEventName(name: string): name is ExtensionEventName {
  return eventNames.has(name);
}
