export {
  type ArborConfig,
  arborConfigSchema,
  type ConfiguredModel,
  type ProviderConfig,
  providerConfigSchema,
} from "./config-schema.js";
export { modelProvidersOf, modelTargetOf } from "./host-providers.js";
export { configuredModelList, type ListedModel } from "./model-list.js";
export {
  configuredThinking,
  DEFAULT_MODELS,
  HOW_TO_CONFIGURE,
  loadConfig,
  type ProviderChoice,
  providersFromEnv,
  type ResolvedProvider,
  resolveProvider,
} from "./resolve-provider.js";
export { askServerModel, isLocalServer, SERVER_MODEL_TIMEOUT_MS } from "./server-model.js";
