export { EXTENSION_EVENT_NAMES, type ExtensionEventName, isExtensionEventName } from "./events.js";
