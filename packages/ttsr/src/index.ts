export { type RegexParts, translateInlineFlags } from "./inline-flags.js";
