import type { UINotification } from "@arbor/orchestration";
import { Box, Text } from "ink";
import { terminalSafe } from "../../output/index.js";

const LEVEL_COLORS = { info: "cyan", warning: "yellow", error: "red" } as const;

/** The footer's extension notifications, newest last, each with its extension's name. */
export function ExtensionNotifications({
  notifications,
}: {
  notifications: readonly UINotification[];
}) {
  if (notifications.length === 0) return null;
  return (
    <Box flexDirection="column">
      {notifications.map((notification, at) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a short list replaced as a whole
        <Text key={at}>
          <Text color={LEVEL_COLORS[notification.level]}>●</Text>{" "}
          <Text color="gray">{terminalSafe(notification.extensionName)}:</Text>{" "}
          {terminalSafe(notification.message)}
        </Text>
      ))}
    </Box>
  );
}
