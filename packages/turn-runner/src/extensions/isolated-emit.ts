import type {
  EmitOptions,
  ExtensionEvent,
  ExtensionEventOutcomeMap,
  ExtensionRunner,
} from "@arbor/extensions-api";

/**
 * Emits a deep copy of the event when any handler will see it. Payloads hold the session's
 * own objects (stored messages, tool arguments, entries), and the runner only copies the
 * top level, so without this a handler that edits what it was given would edit the
 * session in memory. A payload that cannot be cloned (tool details holding functions) is
 * emitted as it is.
 */
export function emitIsolated<E extends ExtensionEvent>(
  runner: ExtensionRunner,
  event: E,
  options: EmitOptions = {},
): Promise<ExtensionEventOutcomeMap[E["type"]]> {
  return runner.emit(runner.hasHandlers(event.type) ? copyOf(event) : event, options);
}

function copyOf<E>(event: E): E {
  try {
    return structuredClone(event);
  } catch {
    return event;
  }
}
