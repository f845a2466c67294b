export { embedJson } from "./embed-json.js";
