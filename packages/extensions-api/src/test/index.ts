export { FakeExtensionHost, type HostCall } from "./fake-extension-host.js";
export { FakeSessionActions, type SessionActionCall } from "./fake-session-actions.js";
export {
  type RecordedUIRequest,
  ScriptedExtensionUI,
  type ScriptedUIAnswer,
} from "./scripted-extension-ui.js";
