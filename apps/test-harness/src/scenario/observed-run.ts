import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The outcome of one scenario. */
export interface ScenarioResult {
  name: string;
  path: string | undefined;
  passed: boolean;
  /** One line per unmet expectation. */
  failures: string[];
  calls: number;
  durationMs: number;
}

/** What {@link runObservedScenario} needs to know of a scenario. */
export interface ObservedScenario {
  name: string;
  /** The text (or each piece of text) the error the scenario expects must contain. */
  throws: string | readonly string[] | undefined;
}

/**
 * The frame every driven scenario shares: a temporary folder for its stores, the work
 * (which reports its unmet expectations into `failures` and returns the model calls made),
 * the expected error checked (missing, or not containing every expected piece), the folder
 * removed, and one {@link ScenarioResult}.
 */
export async function runObservedScenario(
  scenario: ObservedScenario,
  path: string | undefined,
  folderPrefix: string,
  work: (dir: string, failures: string[]) => Promise<number>,
): Promise<ScenarioResult> {
  const started = performance.now();
  const failures: string[] = [];
  const expected =
    scenario.throws === undefined
      ? undefined
      : typeof scenario.throws === "string"
        ? [scenario.throws]
        : scenario.throws;
  const dir = await mkdtemp(join(tmpdir(), folderPrefix));
  let calls = 0;
  try {
    calls = await work(dir, failures);
    if (expected !== undefined) {
      failures.push(
        `expected an error containing ${JSON.stringify(scenario.throws)}, none was thrown`,
      );
    }
  } catch (error) {
    const message = (error as Error).message;
    if (expected === undefined) failures.push(`threw: ${message}`);
    else if (!expected.every((piece) => message.includes(piece)))
      failures.push(
        `threw: expected an error containing ${JSON.stringify(scenario.throws)}, got ${JSON.stringify(message)}`,
      );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return {
    name: scenario.name,
    path,
    passed: failures.length === 0,
    failures,
    calls,
    durationMs: performance.now() - started,
  };
}
