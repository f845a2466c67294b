import type { ExtensionRunner } from "@arbor/orchestration";
import { isEntryOfType, type Session } from "@arbor/session-store";
import { Box, Text } from "ink";
import { createContext, useContext } from "react";
import { terminalSafe } from "../../output/index.js";

/** Finds the lines an extension's renderer draws for a `custom_message` entry, if any. */
export type RenderedLinesLookup = (entryId: string) => readonly string[] | undefined;

/** The lookup the transcript uses; without a provider, custom messages show as text. */
export const RenderedLinesContext = createContext<RenderedLinesLookup | undefined>(undefined);

/**
 * A lookup over the current session and the extensions' renderers
 * (`registerMessageRenderer`). Entries never change, so each one is rendered once: a
 * renderer that fails is reported once, not on every repaint.
 */
export function renderedLinesLookup(
  session: () => Session,
  render: (
    message: Parameters<ExtensionRunner["renderMessage"]>[0],
    options: Parameters<ExtensionRunner["renderMessage"]>[1],
  ) => ReturnType<ExtensionRunner["renderMessage"]>,
  width: number,
): RenderedLinesLookup {
  const cache = new Map<string, readonly string[] | undefined>();
  return (entryId) => {
    if (cache.has(entryId)) return cache.get(entryId);
    const entry = session().getEntry(entryId);
    if (!entry || !isEntryOfType(entry, "custom_message")) return undefined;
    const rendered = render(
      {
        customType: entry.customType,
        content: entry.content,
        display: entry.display,
        ...(entry.details === undefined ? {} : { details: entry.details }),
      },
      { width },
    );
    cache.set(entryId, rendered?.lines);
    return rendered?.lines;
  };
}

/**
 * An extension's displayed message in the transcript: its type, then the lines of its
 * renderer, or its text when it has none.
 */
export function CustomMessageView({
  id,
  customType,
  text,
}: {
  id: string;
  customType: string;
  text: string;
}) {
  const lookup = useContext(RenderedLinesContext);
  const lines = lookup?.(id);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text color="green">{`[${terminalSafe(customType)}]`}</Text>
      {lines ? (
        lines.map((line, at) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the renderer's lines
          <Text key={at}>{terminalSafe(line)}</Text>
        ))
      ) : text ? (
        <Text>{terminalSafe(text, { multiline: true })}</Text>
      ) : null}
    </Box>
  );
}
