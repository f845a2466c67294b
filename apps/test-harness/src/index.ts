export { encodeSseEvent } from "./sse.js";
