import { fileURLToPath } from "node:url";
import type { Session } from "../session.js";
import { MemorySessionStore } from "../store/memory-session-store.js";
import type { ImportedLog } from "./imported-log.js";
import { importedLogText } from "./store-import.js";

/** A file of the package's import fixtures. */
export function importFixture(...parts: string[]): string {
  return fileURLToPath(new URL(`../../fixtures/import/${parts.join("/")}`, import.meta.url));
}

/** Stores an imported session in a memory store and opens it the way Arbor opens any session. */
export async function openImported(log: ImportedLog): Promise<Session> {
  const store = new MemorySessionStore();
  const { id } = await store.importLog(importedLogText(log));
  return store.open(id, { readOnly: true });
}

/** Pairs every tool result of a context with the index of the call before it, or -1. */
export function toolResultPairing(messages: readonly Record<string, unknown>[]): number[] {
  return messages.flatMap((m, i) => {
    if (m.role !== "toolResult") return [];
    for (let j = i - 1; j >= 0; j--) {
      const content = messages[j]?.content;
      if (
        messages[j]?.role === "assistant" &&
        Array.isArray(content) &&
        content.some((b) => b.type === "toolCall" && b.id === m.toolCallId)
      ) {
        return [j];
      }
    }
    return [-1];
  });
}

/** The value, or a test failure when it is missing. */
export function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

/**
 * The tool calls of a context that no later tool result answers, leaving out those of the
 * last assistant message (a session may end while its tools run).
 */
export function unansweredToolCalls(messages: readonly Record<string, unknown>[]): string[] {
  const answered = new Set(
    messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId),
  );
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  return messages.flatMap((m, i) => {
    if (m.role !== "assistant" || i === lastAssistant || !Array.isArray(m.content)) return [];
    return (m.content as { type: string; id?: string }[])
      .filter((b) => b.type === "toolCall" && !answered.has(b.id))
      .map((b) => String(b.id));
  });
}
