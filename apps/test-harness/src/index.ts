export * from "./cassette/index.js";
export * from "./fake-servers/index.js";
export { encodeSseEvent } from "./sse.js";
