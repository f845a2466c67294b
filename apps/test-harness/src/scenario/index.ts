export { formatResultsTable } from "./format-table.js";
export {
  checkExpectations,
  collapseEventTypes,
  runScenario,
  type ScenarioResult,
} from "./run-scenario.js";
export {
  type AnyScenario,
  isAgentScenario,
  isOrchestrationScenario,
  loadScenarios,
  parseScenario,
  type ScenarioFile,
  ScenarioFileError,
} from "./scenario-file.js";
export {
  SCENARIO_VERSION,
  type Scenario,
  type ScenarioInput,
  scenarioAgentSchema,
  scenarioExpectSchema,
  scenarioSchema,
} from "./scenario-schema.js";
