/** How a host takes a reasoning setting. */
export type PresetReasoning =
  /** `reasoning_effort: "low"` (OpenAI's field). */
  | "reasoning_effort"
  /** `reasoning: { effort: "low" }` (OpenRouter). */
  | "reasoning_object"
  /** None: the model reasons or not by itself; nothing is sent. */
  | "none";

/** What Arbor knows of one OpenAI-compatible host. */
export interface OpenAICompatiblePreset {
  /** The host's Chat Completions base URL. */
  baseURL: string;
  /** The field the host reads the output limit from. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  reasoning: PresetReasoning;
  /** Whether the host reads `top_k`. */
  topK: boolean;
  /** Request fields the host refuses (a 400 or 422), left out of the body. */
  refuses: readonly string[];
  /** Request fields the host names otherwise: `{ seed: "random_seed" }`. */
  renames: Readonly<Record<string, string>>;
  /** A server on the user's own machine, which takes any API key. */
  local: boolean;
}

const preset = (
  baseURL: string,
  fields: Partial<Omit<OpenAICompatiblePreset, "baseURL">> = {},
): OpenAICompatiblePreset => ({
  baseURL,
  maxTokensField: "max_tokens",
  reasoning: "none",
  topK: false,
  refuses: [],
  renames: {},
  local: false,
  ...fields,
});

/**
 * OpenAI-compatible hosts whose quirks matter, by name: base URL, output-limit field,
 * reasoning field, `top_k`, and the fields each refuses or names otherwise. Local servers
 * (Ollama, vLLM, llama.cpp, LM Studio) listen on their default ports on 127.0.0.1.
 */
export const OPENAI_COMPATIBLE_PRESETS = {
  openrouter: preset("https://openrouter.ai/api/v1", { reasoning: "reasoning_object", topK: true }),
  groq: preset("https://api.groq.com/openai/v1", {
    maxTokensField: "max_completion_tokens",
    reasoning: "reasoning_effort",
  }),
  deepseek: preset("https://api.deepseek.com/v1"),
  xai: preset("https://api.x.ai/v1", {
    // Grok reasoning models refuse these three.
    refuses: ["presence_penalty", "frequency_penalty", "stop"],
  }),
  mistral: preset("https://api.mistral.ai/v1", { renames: { seed: "random_seed" } }),
  together: preset("https://api.together.xyz/v1", { topK: true }),
  fireworks: preset("https://api.fireworks.ai/inference/v1", {
    reasoning: "reasoning_effort",
    topK: true,
  }),
  cerebras: preset("https://api.cerebras.ai/v1", {
    maxTokensField: "max_completion_tokens",
    reasoning: "reasoning_effort",
    refuses: ["frequency_penalty", "presence_penalty"],
  }),
  ollama: preset("http://127.0.0.1:11434/v1", { reasoning: "reasoning_effort", local: true }),
  vllm: preset("http://127.0.0.1:8000/v1", { topK: true, local: true }),
  llamacpp: preset("http://127.0.0.1:8080/v1", { topK: true, local: true }),
  lmstudio: preset("http://127.0.0.1:1234/v1", { topK: true, local: true }),
} as const satisfies Record<string, OpenAICompatiblePreset>;

/** A name of {@link OPENAI_COMPATIBLE_PRESETS}. */
export type OpenAICompatiblePresetName = keyof typeof OPENAI_COMPATIBLE_PRESETS;

/** The preset names, for config schemas. */
export const OPENAI_COMPATIBLE_PRESET_NAMES = Object.keys(
  OPENAI_COMPATIBLE_PRESETS,
) as OpenAICompatiblePresetName[];

/**
 * Applies a preset's field rules to a Chat Completions body: refused fields are dropped,
 * renamed ones moved, and `reasoning_effort` sent the host's way.
 */
export function applyPreset(
  body: Record<string, unknown>,
  rules: OpenAICompatiblePreset,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body };
  const effort = out.reasoning_effort;
  if (effort !== undefined && rules.reasoning !== "reasoning_effort") {
    delete out.reasoning_effort;
    if (rules.reasoning === "reasoning_object") out.reasoning = { effort };
  }
  for (const field of rules.refuses) delete out[field];
  for (const [from, to] of Object.entries(rules.renames)) {
    if (out[from] === undefined) continue;
    out[to] = out[from];
    delete out[from];
  }
  return out;
}
