import { expect } from "vitest";
import { idsOf, type SseReading } from "./sse-client.js";

/**
 * A whole run as a client read it: ids 1, 2, 3, … with no gap, `deltas` text deltas, and the
 * `end` event naming the run as completed.
 */
export function expectCompletedRun(reading: SseReading, runId: string, deltas: number): void {
  const ids = idsOf(reading);
  expect(ids).toEqual(ids.map((_, i) => i + 1));
  expect(reading.messages.filter((m) => m.event === "text_delta")).toHaveLength(deltas);
  const end = JSON.parse(reading.messages.at(-1)?.data ?? "{}") as Record<string, unknown>;
  expect(end).toMatchObject({ id: runId, status: "completed" });
}
