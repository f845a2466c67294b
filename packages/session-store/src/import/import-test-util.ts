import { fileURLToPath } from "node:url";
import { Session } from "../session.js";
import { MemorySessionStorage } from "../storage/memory-storage.js";
import type { ImportedLog } from "./imported-log.js";
import { importedLogText } from "./store-import.js";

/** A file of the package's import fixtures. */
export function importFixture(...parts: string[]): string {
  return fileURLToPath(new URL(`../../fixtures/import/${parts.join("/")}`, import.meta.url));
}

/** Opens an imported session the way Arbor opens any session (read-only, in memory). */
export function openImported(log: ImportedLog): Promise<Session> {
  return Session.open(MemorySessionStorage.from(importedLogText(log), `memory:${log.header.id}`), {
    readOnly: true,
  });
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
