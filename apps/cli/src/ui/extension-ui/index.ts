export { ExtensionDialog } from "./extension-dialog.js";
export { ExtensionNotifications } from "./extension-notifications.js";
export { ExtensionUILayer } from "./extension-ui-layer.js";
export {
  CustomMessageView,
  RenderedLinesContext,
  type RenderedLinesLookup,
  renderedLinesLookup,
} from "./rendered-message.js";
export {
  MAX_NOTIFICATIONS,
  type PendingUIRequest,
  TerminalExtensionUI,
  type TerminalUIState,
} from "./terminal-extension-ui.js";
export { ToolProgress, type ToolUpdateSource } from "./tool-progress.js";
