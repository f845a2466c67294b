export * from "./agent-scenario/index.js";
export * from "./cassette/index.js";
export { type CliIo, HELP, main } from "./cli/main.js";
export * from "./fake-servers/index.js";
export * from "./scenario/index.js";
export { encodeSseEvent } from "./sse.js";
