import { Box } from "ink";
import { useSyncExternalStore } from "react";
import { ExtensionDialog } from "./extension-dialog.js";
import { ExtensionNotifications } from "./extension-notifications.js";
import type { TerminalExtensionUI } from "./terminal-extension-ui.js";

/**
 * What the chat app places above its footer for extensions: the dialog of the request on
 * screen (it holds the keyboard until answered or dismissed) and the latest notifications.
 * Apps check `ui.getState().pending` to keep their own input inactive meanwhile.
 */
export function ExtensionUILayer({ ui, width = 80 }: { ui: TerminalExtensionUI; width?: number }) {
  const state = useSyncExternalStore(ui.subscribe, ui.getState);
  return (
    <Box flexDirection="column">
      {state.pending ? (
        <ExtensionDialog pending={state.pending} width={width} queued={state.queued} />
      ) : null}
      <ExtensionNotifications notifications={state.notifications} />
    </Box>
  );
}
