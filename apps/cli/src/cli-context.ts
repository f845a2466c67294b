import type { Model } from "@arbor/orchestration";
import { createModel } from "./agent/model-factory.js";
import type { CliArgs } from "./args.js";
import {
  type ArborConfig,
  askServerModel,
  loadConfig,
  type ResolvedProvider,
  resolveProvider,
} from "./config/index.js";
import { CliPrinter, KnownSecrets } from "./output/index.js";
import { type ArborPaths, resolveArborPaths } from "./paths.js";

/** A stream `arbor` writes to. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** The process around a command, passed in so commands run in tests without a process. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Everything a command needs: its I/O, arguments and Arbor's directories. */
export interface CliContext {
  io: CliIo;
  args: CliArgs;
  paths: ArborPaths;
  /** The API keys of this run, which nothing printed may contain. */
  secrets: KnownSecrets;
  /** Prints with secrets redacted and control characters escaped; commands print through it. */
  printer: CliPrinter;
}

/** Builds the context of a command. */
export function createCliContext(
  io: CliIo,
  args: CliArgs,
  secrets: KnownSecrets = new KnownSecrets(io.env),
): CliContext {
  return {
    io,
    args,
    paths: resolveArborPaths(io.env),
    secrets,
    printer: new CliPrinter(io, secrets),
  };
}

/** The config, the chosen provider and its model, for commands that talk to a model. */
export interface ModelSelection {
  config: ArborConfig;
  provider: ResolvedProvider;
  model: Model;
}

/**
 * Loads the config and builds the model `--provider` and `--model` choose.
 * @throws CliError when the config is broken or no provider is configured
 */
export async function selectModel(context: CliContext): Promise<ModelSelection> {
  const config = await loadConfig(context.paths.configFile);
  context.secrets.addConfig(config);
  const provider = resolveProvider(config, context.io.env, {
    ...(context.args.provider !== undefined ? { provider: context.args.provider } : {}),
    ...(context.args.model !== undefined ? { model: context.args.model } : {}),
  });
  context.secrets.add(provider.apiKey);
  // A local server with no model named: the model it serves, not a cloud default.
  if (provider.askServerModel && provider.baseURL !== undefined) {
    const served = await askServerModel(provider.baseURL, provider.apiKey, provider.headers);
    if (served !== undefined) {
      const { askServerModel: _asked, modelInfo: _info, ...rest } = provider;
      const info = config.providers[provider.name]?.models?.find((entry) => entry.id === served);
      const chosen = { ...rest, model: served, ...(info ? { modelInfo: info } : {}) };
      return { config, provider: chosen, model: createModel(chosen) };
    }
  }
  return { config, provider, model: createModel(provider) };
}
