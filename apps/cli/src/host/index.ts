export { cliAgentDefinition, cliModels, configuredModels } from "./cli-agent.js";
export { CliSessionStore, type CliSessionStoreOptions } from "./cli-session-store.js";
export {
  type CliAgent,
  type CliAgentOverrides,
  type CliAgentProfile,
  openCliAgent,
  runSystemPrompt,
} from "./open-cli-agent.js";
export { type CliHostOptions, cliAgentOptions, openCliHost } from "./open-cli-host.js";
