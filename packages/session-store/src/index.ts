export { CURRENT_SESSION_VERSION } from "./format/version.js";
