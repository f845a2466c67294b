export { cliAgentDefinition, cliModels, configuredModels } from "./cli-agent.js";
export { CliSessionStore, type CliSessionStoreOptions } from "./cli-session-store.js";
export { type CliHostOptions, cliAgentOptions, openCliHost } from "./open-cli-host.js";
