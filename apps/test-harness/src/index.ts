export * from "./fake-servers/index.js";
export { encodeSseEvent } from "./sse.js";
