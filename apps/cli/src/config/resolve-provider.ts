import { readFile } from "node:fs/promises";
import { LOCAL_PROVIDER_PRESETS, presetBaseURL, type ReasoningLevel } from "@arbor/orchestration";
import { z } from "zod";
import { CliError } from "../cli-error.js";
import {
  type ArborConfig,
  arborConfigSchema,
  type ConfiguredModel,
  type ProviderConfig,
} from "./config-schema.js";
import { isLocalServer } from "./server-model.js";

/** A provider ready to build a model from: nothing left to look up. */
export interface ResolvedProvider {
  /** The name the user knows it by (`openai`, `anthropic`, a key of `providers`). */
  name: string;
  api: ProviderConfig["api"];
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** For `openai-chat`: the known host whose quirks apply. */
  preset?: string;
  /** For `azure-openai`: which wire, and the `api-version`. */
  wire?: "chat" | "responses";
  apiVersion?: string;
  /** What the config says of the model (context window, prices), when it lists it. */
  modelInfo?: ConfiguredModel;
  /**
   * No model was named and the provider is a server of its own (a base URL of an
   * OpenAI-compatible API): ask it which model it serves (`GET /models`) rather than
   * sending a cloud default it does not have.
   */
  askServerModel?: boolean;
}

/**
 * The model used for a provider when neither the config nor `--model` names one (Azure
 * has none: its model is the deployment name, which the config must give).
 */
export const DEFAULT_MODELS: Readonly<Record<ProviderConfig["api"], string>> = {
  "openai-chat": "gpt-4.1-mini",
  "anthropic-messages": "claude-sonnet-4-6",
  "openai-responses": "gpt-5-mini",
  "google-gemini": "gemini-2.5-flash",
  "azure-openai": "",
};

/** The text `arbor` shows when no provider is configured. */
export const HOW_TO_CONFIGURE = [
  "Configure one of:",
  "  export OPENAI_API_KEY=sk-...            (OpenAI)",
  "  export ANTHROPIC_API_KEY=sk-ant-...     (Anthropic)",
  "  export OPENAI_BASE_URL=http://127.0.0.1:11434/v1   (Ollama or another OpenAI-compatible server)",
  'or write ~/.arbor/config.json, e.g. {"providers":{"ollama":{"api":"openai-chat","baseURL":"http://127.0.0.1:11434/v1","model":"llama3.2"}}}',
  'To try Arbor without any provider, run "arbor demo".',
].join("\n");

/**
 * Reads and validates the config file. A missing file is an empty config; a file that is
 * not JSON or breaks the schema is an error naming the file and the problem.
 * @throws CliError when the file cannot be used
 */
export async function loadConfig(path: string): Promise<ArborConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return arborConfigSchema.parse({});
    throw new CliError(`cannot read the config file ${path}: ${(error as Error).message}`, {
      hint: "Check the file's permissions, or move it away to start without one.",
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the config file ${path} is not valid JSON: ${(error as Error).message}`, {
      hint: "Fix the JSON (an online or editor JSON check shows where), or move the file away.",
    });
  }
  const parsed = arborConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new CliError(`the config file ${path} is not valid:\n${z.prettifyError(parsed.error)}`, {
      hint: 'Fix the fields named above; "arbor --help" shows an example config.',
    });
  }
  return parsed.data;
}

/** The providers the environment configures: `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`. */
export function providersFromEnv(env: NodeJS.ProcessEnv): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  const openaiKey = env.OPENAI_API_KEY?.trim();
  const anthropicBase = env.ANTHROPIC_BASE_URL?.trim();
  const openaiBase = env.OPENAI_BASE_URL?.trim();
  if (openaiKey || openaiBase) {
    providers.openai = {
      api: "openai-chat",
      // Local OpenAI-compatible servers accept any key, but the client insists on one.
      apiKey: openaiKey || "not-needed",
      ...(openaiBase ? { baseURL: openaiBase } : {}),
    };
  }
  const anthropicKey = env.ANTHROPIC_API_KEY?.trim();
  if (anthropicKey) {
    providers.anthropic = {
      api: "anthropic-messages",
      apiKey: anthropicKey,
      ...(anthropicBase ? { baseURL: anthropicBase } : {}),
    };
  }
  return providers;
}

/** What the user asked for on the command line. */
export interface ProviderChoice {
  provider?: string;
  model?: string;
}

/**
 * Picks the provider and model: `--provider`, else the config's `defaultProvider`, else the
 * only (or first) configured one, config file before environment.
 * @throws CliError when nothing is configured or the choice names nothing known
 */
export function resolveProvider(
  config: ArborConfig,
  env: NodeJS.ProcessEnv,
  choice: ProviderChoice,
): ResolvedProvider {
  const fromEnv = providersFromEnv(env);
  const all: Record<string, ProviderConfig> = { ...fromEnv, ...config.providers };
  const names = Object.keys(all);
  if (names.length === 0) {
    throw new CliError("no model provider is configured.", { hint: HOW_TO_CONFIGURE });
  }
  // `-m provider/model` names both, when the part before the slash is a known provider
  // (model ids may hold slashes themselves: `meta-llama/llama-3` on an OpenAI-compatible server).
  const slash = choice.model?.indexOf("/") ?? -1;
  if (choice.provider === undefined && choice.model !== undefined && slash > 0) {
    const prefix = choice.model.slice(0, slash);
    if (all[prefix] !== undefined) {
      return resolveProvider(config, env, {
        provider: prefix,
        model: choice.model.slice(slash + 1),
      });
    }
  }
  const name = choice.provider ?? config.defaultProvider ?? names[0];
  const provider = name === undefined ? undefined : all[name];
  if (name === undefined || provider === undefined) {
    throw new CliError(`there is no provider named "${name}".`, {
      hint: `Configured providers: ${names.join(", ")}. Pass one of them to --provider.`,
      exitCode: 2,
    });
  }
  let apiKey = provider.apiKey ?? (provider.apiKeyEnv ? env[provider.apiKeyEnv] : undefined);
  // A server of one's own (Ollama, llama.cpp, vLLM) takes no key; the client insists on one.
  const localPreset =
    provider.preset !== undefined && LOCAL_PROVIDER_PRESETS.includes(provider.preset);
  const ownServer =
    provider.api === "openai-chat" && (provider.baseURL !== undefined || localPreset);
  if (ownServer && provider.apiKey === undefined && provider.apiKeyEnv === undefined) {
    apiKey = "not-needed";
  }
  // A blank key is missing too: the host refuses it, so it is reported here with the fix.
  if (!apiKey?.trim()) {
    const where = provider.apiKeyEnv
      ? `set the environment variable ${provider.apiKeyEnv}`
      : `add "apiKey" or "apiKeyEnv" to providers.${name} in the config file`;
    throw new CliError(`the provider "${name}" has no API key.`, { hint: `To fix it, ${where}.` });
  }
  const named = choice.model ?? provider.model ?? provider.models?.[0]?.id;
  // Where a server of one's own listens: its baseURL, else its preset's default port.
  const serverURL =
    provider.baseURL ?? (provider.preset ? presetBaseURL(provider.preset) : undefined) ?? "";
  const model = named ?? DEFAULT_MODELS[provider.api];
  const modelInfo = provider.models?.find((entry) => entry.id === model);
  return {
    name,
    api: provider.api,
    apiKey,
    ...(provider.baseURL || localPreset ? { baseURL: serverURL } : {}),
    model,
    ...(provider.headers ? { headers: provider.headers } : {}),
    ...(provider.preset ? { preset: provider.preset } : {}),
    ...(provider.wire ? { wire: provider.wire } : {}),
    ...(provider.apiVersion ? { apiVersion: provider.apiVersion } : {}),
    ...(modelInfo ? { modelInfo } : {}),
    ...(named === undefined && ownServer && isLocalServer(serverURL)
      ? { askServerModel: true }
      : {}),
  };
}

/** The reasoning level of a config, `off` when unset. */
export function configuredThinking(config: ArborConfig): ReasoningLevel {
  return config.thinking ?? "off";
}
