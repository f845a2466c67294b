import { CURRENT_SESSION_VERSION } from "../format/version.js";
import type { ImportedLog } from "./imported-log.js";
import { type ImportedLogBuilder, isoTime } from "./log-builder.js";
import { OpencodeConverter } from "./opencode-converter.js";
import type { OpencodeMessage, OpencodePart, OpencodeSession } from "./opencode-files.js";
import { importedSessionId } from "./session-ids.js";

/** One opencode message with its parts, and where it was read from. */
export interface OpencodeMessageRecord {
  info: OpencodeMessage;
  parts: OpencodePart[];
  /** The provenance of its entries: a file of the storage folder, or `message/<id>` of the database. */
  source: string;
}

/**
 * One opencode session as an imported log, whichever storage it was read from (the JSON
 * folder or the SQLite database): messages in creation order, parts in id order.
 * @param path the source recorded in the header (the session's info file, or the database)
 */
export function opencodeImportedLog(options: {
  sessionId: string;
  session: OpencodeSession | undefined;
  messages: OpencodeMessageRecord[];
  builder: ImportedLogBuilder;
  path: string;
}): ImportedLog {
  const { sessionId, session, builder } = options;
  const messages = [...options.messages].sort(
    (a, b) =>
      (a.info.time?.created ?? 0) - (b.info.time?.created ?? 0) ||
      a.info.id.localeCompare(b.info.id),
  );
  const converter = new OpencodeConverter(builder);
  for (const { info, parts, source } of messages) {
    const first = builder.entries.length;
    converter.message(
      info,
      [...parts].sort((a, b) => a.id.localeCompare(b.id)),
      source,
    );
    // An answer opencode has not completed still gains parts.
    const added = builder.entries[first];
    if (info.role === "assistant" && info.time?.completed === undefined && added)
      builder.open(added.id);
    else builder.close();
  }
  return {
    header: {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: importedSessionId("opencode", sessionId),
      timestamp: isoTime(session?.time?.created, new Date(0).toISOString()),
      cwd: session?.directory ?? "",
      ...(session?.parentID
        ? { parentSession: importedSessionId("opencode", session.parentID) }
        : {}),
      ...(session?.title ? { title: session.title } : {}),
      importedFrom: {
        tool: "opencode",
        sessionId,
        path: options.path,
        ...(session?.version ? { version: session.version } : {}),
      },
    },
    entries: builder.entries,
    report: builder.report,
    openEntries: builder.openEntries(),
  };
}

/**
 * Keeps a stored record no reader understands (a file or row that is not JSON, or not of the
 * expected shape) as an `import.raw_line` custom entry, and counts it with its reason.
 */
export function keepOpencodeRaw(
  builder: ImportedLogBuilder,
  source: string,
  text: string,
  reason: string,
): undefined {
  builder.report.raw++;
  builder.report.issues.push({ line: 0, file: source, reason });
  builder.add(
    {
      type: "custom",
      id: `file-${source}`,
      parentId: builder.lastId(),
      timestamp: builder.entries.at(-1)?.timestamp ?? new Date(0).toISOString(),
      customType: "import.raw_line",
      data: { file: source, reason, text },
    },
    { file: source },
  );
  return undefined;
}
