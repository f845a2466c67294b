export {
  checkOrchestrationExpectations,
  type OrchestrationObservation,
} from "./check-orchestration-expectations.js";
export { type CrashedRun, crashRun } from "./crash-run.js";
export {
  type ExpectedSession,
  expectedOrchestrationResultSchema,
  expectedSessionSchema,
  ORCHESTRATION_SCENARIO_VERSION,
  type OrchestrationScenario,
  type OrchestrationScenarioInput,
  orchestrationActionSchema,
  orchestrationCrashSchema,
  orchestrationExpectSchema,
  orchestrationScenarioSchema,
} from "./orchestration-scenario-schema.js";
export { runOrchestrationScenario } from "./run-orchestration-scenario.js";
export { collectSessions, type ObservedSession } from "./session-trees.js";
