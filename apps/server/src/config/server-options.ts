import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ServerConfigError } from "./server-config-error.js";

/** What `arbor-server` was asked for on the command line and in the environment. */
export interface ServerOptions {
  help: boolean;
  version: boolean;
  configPath: string | undefined;
  port: number | undefined;
  host: string | undefined;
  database: string | undefined;
  home: string | undefined;
}

/** Each option, its environment variable and what it means (shown by `--help`). */
export const SERVER_OPTIONS = [
  {
    flag: "--config",
    env: "ARBOR_SERVER_CONFIG",
    key: "configPath",
    text: "YAML config file (agents, providers, limits, CORS)",
  },
  {
    flag: "--port",
    env: "ARBOR_SERVER_PORT",
    key: "port",
    text: "port to listen on (default 8787; 0 picks a free one)",
  },
  {
    flag: "--host",
    env: "ARBOR_SERVER_HOST",
    key: "host",
    text: "address to listen on (default 127.0.0.1)",
  },
  {
    flag: "--database",
    env: "ARBOR_SERVER_DATABASE",
    key: "database",
    text: "PostgreSQL connection string (default: the file store under the home)",
  },
  {
    flag: "--home",
    env: "ARBOR_HOME",
    key: "home",
    text: "folder of sessions, API keys and run logs (default ~/.arbor)",
  },
] as const;

/** The default port. */
export const DEFAULT_PORT = 8787;
/** The default address: loopback only. */
export const DEFAULT_HOST = "127.0.0.1";

/** The text of `arbor-server --help`. */
export function helpText(): string {
  const rows = SERVER_OPTIONS.map(
    (option) =>
      `  ${`${option.flag} <value>`.padEnd(20)} ${option.text}\n  ${"".padEnd(20)} env ${option.env}`,
  );
  return [
    "Usage: arbor-server [options]",
    "",
    "Serves Arbor sessions and agent runs over HTTP + SSE.",
    "",
    "Options (a flag wins over its environment variable, which wins over the config file):",
    ...rows,
    `  ${"--help".padEnd(20)} show this text`,
    `  ${"--version".padEnd(20)} show the version`,
    "",
    "Environment:",
    "  ARBOR_ADMIN_KEY      the admin key: creates tenants and API keys through /v1/admin",
    "  <apiKeyEnv>          each provider's API key, under the name its config entry gives",
    "",
    "Clients send `Authorization: Bearer <key>`. Routes: /health, /ready, /openapi.json, /v1/…",
  ].join("\n");
}

function parsePort(text: string, source: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new ServerConfigError(source, "port", `"${text}" is not a port (0 to 65535)`);
  }
  return Number(text);
}

/**
 * Reads the command line and the environment.
 * @throws ServerConfigError naming the flag or variable at fault
 */
export function parseServerOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServerOptions {
  const options: ServerOptions = {
    help: false,
    version: false,
    configPath: undefined,
    port: undefined,
    host: undefined,
    database: undefined,
    home: undefined,
  };
  const set = (key: (typeof SERVER_OPTIONS)[number]["key"], value: string, source: string) => {
    if (value === "") throw new ServerConfigError(source, key, "an empty value");
    if (key === "port") options.port = parsePort(value, source);
    else options[key] = value;
  };
  for (const option of SERVER_OPTIONS) {
    const value = env[option.env];
    if (value !== undefined && value !== "") set(option.key, value, option.env);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--help" || arg === "-h") {
      options.help = true;
      continue;
    }
    if (arg === "--version") {
      options.version = true;
      continue;
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const option = SERVER_OPTIONS.find((o) => o.flag === flag);
    if (!option) throw new ServerConfigError("command line", arg, "unknown option; see --help");
    const value = inline ?? argv[++i];
    if (value === undefined)
      throw new ServerConfigError("command line", option.flag, "needs a value");
    set(option.key, value, option.flag);
  }
  return options;
}

/** The home folder: the option, else `~/.arbor`. */
export function resolveHome(home: string | undefined): string {
  return home === undefined ? join(homedir(), ".arbor") : resolve(home);
}
