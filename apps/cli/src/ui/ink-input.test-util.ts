import type { EventEmitter } from "node:events";
import { expect, vi } from "vitest";

/**
 * Waits until ink listens on a test stdin. Keys written before that are lost, and on a
 * busy machine the first render can take longer than any fixed pause.
 */
export function inputReady(stdin: EventEmitter): Promise<void> {
  return vi.waitFor(() => expect(stdin.listenerCount("readable")).toBeGreaterThan(0), {
    timeout: 10_000,
  });
}
