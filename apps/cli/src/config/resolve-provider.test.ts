import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "../cli-error.js";
import { arborConfigSchema } from "./config-schema.js";
import { loadConfig, resolveProvider } from "./resolve-provider.js";

const empty = arborConfigSchema.parse({});

async function configFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "arbor-config-"));
  const path = join(dir, "config.json");
  await writeFile(path, text);
  return path;
}

describe("loadConfig", () => {
  it("treats a missing file as an empty config", async () => {
    expect(await loadConfig(join(tmpdir(), "no-such-dir-arbor", "config.json"))).toEqual(empty);
  });

  it("names the file and the JSON problem", async () => {
    const path = await configFile("{ oops");
    const error = await loadConfig(path).catch((e: unknown) => e);
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as CliError).message).toContain(`${path} is not valid JSON`);
    expect((error as CliError).hint).toMatch(/Fix the JSON/);
  });

  it("names the field that breaks the schema, including unknown keys", async () => {
    const error = await loadConfig(
      await configFile('{"thinking":"maximum","colour":"blue"}'),
    ).catch((e: unknown) => e);
    expect((error as CliError).message).toContain("thinking");
    expect((error as CliError).message).toContain("colour");
  });
});

describe("resolveProvider", () => {
  it("says how to configure a provider when none is", () => {
    const error = (() => {
      try {
        resolveProvider(empty, {}, {});
      } catch (e) {
        return e;
      }
    })() as CliError;
    expect(error.message).toBe("no model provider is configured.");
    expect(error.hint).toContain("OPENAI_API_KEY");
    expect(error.hint).toContain("arbor demo");
  });

  it("takes OpenAI, a compatible base URL and Anthropic from the environment", () => {
    expect(resolveProvider(empty, { OPENAI_API_KEY: "sk-1" }, {})).toEqual({
      name: "openai",
      api: "openai-chat",
      apiKey: "sk-1",
      model: "gpt-4.1-mini",
    });
    expect(
      resolveProvider(
        empty,
        { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" },
        { model: "llama3.2" },
      ),
    ).toMatchObject({
      baseURL: "http://127.0.0.1:11434/v1",
      model: "llama3.2",
      apiKey: "not-needed",
    });
    expect(resolveProvider(empty, { ANTHROPIC_API_KEY: "sk-ant" }, {})).toMatchObject({
      name: "anthropic",
      api: "anthropic-messages",
      model: "claude-sonnet-4-6",
    });
  });

  it("prefers --provider, then defaultProvider, and reads keys from apiKeyEnv", () => {
    const config = arborConfigSchema.parse({
      defaultProvider: "local",
      providers: {
        local: {
          api: "openai-chat",
          baseURL: "http://127.0.0.1:8080/v1",
          apiKey: "x",
          model: "qwen",
        },
        claude: { api: "anthropic-messages", apiKeyEnv: "MY_CLAUDE_KEY" },
      },
    });
    expect(resolveProvider(config, {}, {}).name).toBe("local");
    expect(resolveProvider(config, { MY_CLAUDE_KEY: "k" }, { provider: "claude" })).toMatchObject({
      apiKey: "k",
      model: "claude-sonnet-4-6",
    });
    expect(() => resolveProvider(config, {}, { provider: "claude" })).toThrow(/no API key/);
    expect(() => resolveProvider(config, {}, { provider: "nope" })).toThrow(
      /no provider named "nope"/,
    );
  });

  it("reads -m provider/model when the prefix is a known provider, and keeps slashes of model ids", () => {
    const config = arborConfigSchema.parse({
      providers: {
        local: { api: "openai-chat", baseURL: "http://127.0.0.1:1/v1", apiKey: "k-local" },
      },
    });
    const env = { OPENAI_API_KEY: "sk-test-openai", ANTHROPIC_API_KEY: "sk-ant-test" };
    expect(resolveProvider(config, env, { model: "anthropic/claude-x" })).toMatchObject({
      name: "anthropic",
      model: "claude-x",
    });
    expect(resolveProvider(config, env, { model: "local/meta-llama/llama-3" })).toMatchObject({
      name: "local",
      model: "meta-llama/llama-3",
    });
    // Not a provider name: the whole string is the model id of the default provider.
    expect(resolveProvider(config, env, { model: "meta-llama/llama-3" })).toMatchObject({
      model: "meta-llama/llama-3",
    });
    // --provider given: the model id is taken as it is.
    expect(
      resolveProvider(config, env, { provider: "openai", model: "anthropic/claude-x" }),
    ).toMatchObject({ name: "openai", model: "anthropic/claude-x" });
  });
});
