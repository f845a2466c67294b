export { type HashWorkspaceOptions, hashWorkspace } from "./workspace-hash.js";
