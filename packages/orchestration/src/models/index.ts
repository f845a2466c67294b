export {
  DEFAULT_PROVIDER_MODELS,
  LOCAL_PROVIDER_PRESETS,
  type ModelProviders,
  modelProvidersSchema,
  PROVIDER_APIS,
  PROVIDER_PRESETS,
  type ProviderSettings,
  presetBaseURL,
  providerSettingsSchema,
} from "./provider-settings.js";
export { createModelForTarget, resolveModelTargets } from "./resolve-model-targets.js";
