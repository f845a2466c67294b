import { PROVIDER_APIS, PROVIDER_PRESETS } from "@arbor/orchestration";
import { z } from "zod";
import { serverExtensionSettingsSchema } from "../extensions/extension-settings.js";
import { headendSettingsSchema } from "../headends/headend-settings.js";
import { clusterSettingsSchema } from "./cluster-settings.js";
import { serverLimitsSchema } from "./limits.js";

/** A provider as the config file names it: the key comes from an environment variable. */
export const configProviderSchema = z.strictObject({
  /** `openai-chat`, `anthropic-messages`, `openai-responses`, `google-gemini` or `azure-openai`. */
  api: z.enum(PROVIDER_APIS),
  /** For `openai-chat`: a known host (`groq`, `openrouter`, `vllm`, …) whose quirks apply. */
  preset: z.enum(PROVIDER_PRESETS as [string, ...string[]]).optional(),
  /** For `azure-openai`: the Responses API (default) or Chat Completions. */
  wire: z.enum(["chat", "responses"]).optional(),
  /** For `azure-openai`: the `api-version` of every request. */
  apiVersion: z.string().min(1).optional(),
  /** The environment variable holding the API key (keys never live in the config file). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
    .optional(),
  baseURL: z.url().optional(),
  model: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});

/** An agent entry: a Markdown agent file, or a definition written inline. */
export const configAgentSchema = z.union([
  z.strictObject({
    /** An agent file (Markdown with YAML front matter), relative to the config file. */
    file: z.string().min(1),
  }),
  z.looseObject({ name: z.string().min(1), models: z.array(z.unknown()).min(1) }),
]);

/**
 * The YAML config file of `arbor-server`. Unknown keys are errors, so a misspelt key is
 * never silently ignored.
 */
export const serverConfigFileSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  /** A PostgreSQL connection string; without it the file store under the home is used. */
  database: z.string().min(1).optional(),
  /** The server's home: sessions, API keys and run event logs. */
  home: z.string().min(1).optional(),
  /** Model providers by the name agent targets use. */
  providers: z.record(z.string().min(1), configProviderSchema).default({}),
  /** Agents clients may choose by name. */
  agents: z.array(configAgentSchema).default([]),
  /** A folder of agent files (`*.md`), relative to the config file. */
  agentsDir: z.string().min(1).optional(),
  limits: serverLimitsSchema.default(serverLimitsSchema.parse({})),
  /** How instances sharing the database cooperate (leases, polling, shutdown, retention). */
  cluster: clusterSettingsSchema.default(clusterSettingsSchema.parse({})),
  /** How the agents' extensions run: UI request and handler timeouts. */
  extensions: serverExtensionSettingsSchema.default(serverExtensionSettingsSchema.parse({})),
  /** Origins allowed to call the API from a browser; CORS is off without it. */
  cors: z.strictObject({ origins: z.array(z.string().min(1)).min(1) }).optional(),
  /** The protocols offered beside the native API (OpenAI-compatible, MCP, A2A); all on by default. */
  headends: headendSettingsSchema.default(headendSettingsSchema.parse({})),
});

/** The config file, with defaults applied. */
export type ServerConfigFile = z.output<typeof serverConfigFileSchema>;
