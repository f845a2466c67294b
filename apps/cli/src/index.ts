export { type CliArgs, CliUsageError, parseCliArgs } from "./args.js";
