import {
  type AgentMessage,
  activityTimeFromLineEnd,
  activityTimeOf,
  DEFAULT_TITLE_LENGTH,
  messageText,
  titleFromText,
} from "@arbor/session-store";

/** The columns of a batch of lines, as the append statement takes them (arrays in order). */
export interface BatchRows {
  entryIds: string[];
  parentIds: (string | null)[];
  types: string[];
  opIds: string[];
  entries: string[];
  /** The leaf after the batch: the last entry, or a leaf pointer's target. */
  leafId: string | null;
  /** The first user message's text in the batch, if any. */
  firstUserMessage: string | null;
  /** The title made from it. */
  autoTitle: string | null;
  /** The name the last `session_info` of the batch sets ("" clears), if any. */
  name: string | undefined;
  /**
   * The batch's last activity by pi's rule (the latest user or assistant message), in epoch
   * milliseconds; NaN when the batch has none.
   */
  newest: number;
}

/** A line's head as `Session` writes it: type, id, parentId and timestamp first. */
const head =
  /^\{"type":"((?:[^"\\]|\\.)*)","id":"((?:[^"\\]|\\.)*)","parentId":(null|"(?:[^"\\]|\\.)*"),"timestamp":"([^"\\]*)"/;
/** A message line as `Session` writes it, up to its role. */
const messageRole =
  /^\{"type":"message","id":"[^"\\]*","parentId":(?:null|"[^"\\]*"),"timestamp":"[^"\\]*","message":\{"role":"([^"\\]*)"/;

interface LineHead {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

function readHead(line: string): LineHead {
  const match = head.exec(line);
  if (match && !match[0].includes("\\")) {
    const [, type, id, parent, timestamp] = match as unknown as string[];
    return {
      type: type as string,
      id: id as string,
      parentId: parent === "null" ? null : (parent as string).slice(1, -1),
      timestamp: timestamp as string,
    };
  }
  const value = JSON.parse(line) as Record<string, unknown>;
  return {
    type: String(value.type),
    id: String(value.id),
    parentId: typeof value.parentId === "string" ? value.parentId : null,
    timestamp: typeof value.timestamp === "string" ? value.timestamp : "",
  };
}

/** The operation id line `index` of an append is stored under: `<operation id>#<index>`. */
export function lineOperationId(operationId: string, index: number): string {
  return `${operationId}#${index}`;
}

/**
 * Splits lines (whole JSON entries, as a session hands them to its storage) into the
 * columns of the entries table, and the facts the sessions row keeps in step.
 * @param opIds - each line's operation id (see `lineOperationId`); empty lines are skipped
 * @param options.firstUserKnown - the session's row has its first user message already, so
 * the batch's is not looked for (the row keeps the first one anyway)
 */
export function batchRows(
  lines: readonly string[],
  opIds: readonly string[],
  titleLength = DEFAULT_TITLE_LENGTH,
  options: { firstUserKnown?: boolean } = {},
): BatchRows {
  const rows: BatchRows = {
    entryIds: [],
    parentIds: [],
    types: [],
    opIds: [],
    entries: [],
    leafId: null,
    firstUserMessage: null,
    autoTitle: null,
    name: undefined,
    newest: Number.NaN,
  };
  for (const [i, line] of lines.entries()) {
    if (line === "") continue;
    const { type, id, parentId } = readHead(line);
    rows.entryIds.push(id);
    rows.parentIds.push(parentId);
    rows.types.push(type);
    rows.opIds.push(opIds[i] as string);
    rows.entries.push(line);
    rows.leafId = type === "leaf" ? parentId : id;
    if (type === "session_info") {
      const value = JSON.parse(line) as { name?: unknown };
      rows.name = typeof value.name === "string" ? value.name.trim() : "";
      continue;
    }
    if (type !== "message") continue;
    const role = messageRole.exec(line)?.[1];
    if (role !== undefined && role !== "user" && role !== "assistant") continue;
    const wantsFirstUser =
      !options.firstUserKnown && rows.firstUserMessage === null && role !== "assistant";
    // Most lines end with the message's timestamp: read it there, and parse only when needed.
    const fromEnd = role === undefined ? undefined : activityTimeFromLineEnd(line);
    const value =
      fromEnd === undefined || wantsFirstUser
        ? (JSON.parse(line) as { message?: AgentMessage })
        : undefined;
    const at = fromEnd ?? activityTimeOf(value);
    if (at !== undefined && !(at <= rows.newest)) rows.newest = at;
    if (wantsFirstUser && value?.message?.role === "user") {
      const text = messageText(value.message).trim();
      if (text) {
        rows.firstUserMessage = text.slice(0, 2000);
        rows.autoTitle = titleFromText(text, titleLength) ?? null;
      }
    }
  }
  return rows;
}

/**
 * What a batch tells its session's row, in the order the append functions and statement take
 * it: the leaf, the first user message, its title, whether a name is set, the name, the
 * newest activity.
 */
export function sessionFacts(
  rows: BatchRows,
): [string | null, string | null, string | null, boolean, string | null, Date | null] {
  return [
    rows.leafId,
    rows.firstUserMessage,
    rows.autoTitle,
    rows.name !== undefined,
    rows.name ?? null,
    Number.isNaN(rows.newest) ? null : new Date(rows.newest),
  ];
}
