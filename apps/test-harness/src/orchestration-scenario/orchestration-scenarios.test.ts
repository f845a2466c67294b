import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  isOrchestrationScenario,
  loadScenarios,
  parseScenario,
} from "../scenario/scenario-file.js";
import type { OrchestrationScenario } from "./orchestration-scenario-schema.js";
import { runOrchestrationScenario } from "./run-orchestration-scenario.js";

// Every shipped scenario runs in scenario/scenarios.test.ts; these check the set and the checker.
const DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "scenarios", "orchestration");

async function shipped(file: string): Promise<OrchestrationScenario> {
  const path = join(DIR, file);
  const scenario = parseScenario(await readFile(path, "utf8"), path);
  if (!isOrchestrationScenario(scenario))
    throw new Error(`${file} is not an orchestration scenario`);
  return scenario;
}

describe("orchestration scenarios", () => {
  it("ship at least 40, a quarter of them through the real adapters", async () => {
    const files = await loadScenarios(DIR);
    const scenarios = files.map((file) => file.scenario).filter(isOrchestrationScenario);
    expect(scenarios.length).toBeGreaterThanOrEqual(40);
    const throughAdapters = scenarios.filter((scenario) =>
      Object.values(scenario.targets).some((target) => target.provider !== "scripted"),
    );
    expect(throughAdapters.length * 4).toBeGreaterThanOrEqual(scenarios.length);
  });

  it("report a wrong result, a wrong tree, a missing session and a wrong child outcome", async () => {
    const scenario = await shipped("advisors-all-answer.yaml");
    const wrong: OrchestrationScenario = {
      ...scenario,
      expect: {
        result: { success: false, finalAgent: "main:critic" },
        children: ["main:critic advisor failed", "main:planner advisor succeeded"],
        sessions: {
          main: { path: [] },
          "main:critic": { path: [] },
          "main:ghost": { path: [] },
        },
      },
    };
    const result = await runOrchestrationScenario(wrong);
    expect(result.passed).toBe(false);
    const text = result.failures.join("\n");
    expect(text).toContain("result.success");
    expect(text).toContain("result.finalAgent");
    expect(text).toContain("result.children");
    expect(text).toContain('sessions: expected ["main","main:critic","main:ghost"]');
    expect(text).toContain("sessions[main].tree.path");
  });

  it("fails a scenario whose expected error is not thrown, and passes one whose error is", async () => {
    const scenario = await shipped("advisors-all-answer.yaml");
    const missing = await runOrchestrationScenario({ ...scenario, expect: { throws: ["cycle"] } });
    expect(missing.failures).toEqual(['expected an error containing ["cycle"], none was thrown']);
  });
});
