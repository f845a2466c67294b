import type { ModelProviders, ModelTargetSpec } from "@arbor/orchestration";
import type { ResolvedProvider } from "./resolve-provider.js";

/** The provider settings the agent host resolves the CLI's model target against. */
export function modelProvidersOf(provider: ResolvedProvider): ModelProviders {
  return {
    providers: {
      [provider.name]: {
        api: provider.api,
        apiKey: provider.apiKey,
        model: provider.model,
        ...(provider.baseURL ? { baseURL: provider.baseURL } : {}),
        ...(provider.headers ? { headers: provider.headers } : {}),
        ...(provider.preset ? { preset: provider.preset } : {}),
        ...(provider.wire ? { wire: provider.wire } : {}),
        ...(provider.apiVersion ? { apiVersion: provider.apiVersion } : {}),
      },
    },
  };
}

/** The model target `--provider` and `--model` chose. */
export function modelTargetOf(provider: ResolvedProvider): ModelTargetSpec {
  return { provider: provider.name, model: provider.model };
}
