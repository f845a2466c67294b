#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { ServerConfigError } from "./config/server-config-error.js";
import { helpText, parseServerOptions } from "./config/server-options.js";
import { startServer } from "./server.js";

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

async function main(): Promise<number> {
  const print = (line: string) => process.stdout.write(`${line}\n`);
  const printError = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const options = parseServerOptions(process.argv.slice(2), process.env);
    if (options.help) {
      print(helpText());
      return 0;
    }
    if (options.version) {
      print(version());
      return 0;
    }
    const server = await startServer(options, { env: process.env, version: version(), print });
    const shutdown = (signal: string) => {
      printError(`arbor-server: ${signal}, shutting down`);
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once("SIGINT", () => shutdown("SIGINT"));
    process.once("SIGTERM", () => shutdown("SIGTERM"));
    return -1;
  } catch (error) {
    if (ServerConfigError.isInstance(error)) {
      printError(`arbor-server: ${error.message}`);
      return 2;
    }
    printError(`arbor-server: ${(error as Error)?.message ?? String(error)}`);
    return 1;
  }
}

const code = await main();
if (code >= 0) process.exit(code);
