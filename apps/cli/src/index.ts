export { type CliArgs, CliUsageError, parseCliArgs } from "./args.js";
export type { CliContext, CliIo, OutputStream } from "./cli-context.js";
export { CliError } from "./cli-error.js";
export { type DemoOutcome, runDemo } from "./commands/demo-command.js";
export * from "./config/index.js";
export { cliVersion, main, reportError } from "./main.js";
export { type ArborPaths, resolveArborPaths, sessionDirFor } from "./paths.js";
