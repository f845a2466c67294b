import { sessionUsage } from "@arbor/orchestration";
import type { Session, StoredSessionInfo } from "@arbor/session-store";
import type { z } from "@hono/zod-openapi";
import type { sessionDetailSchema, sessionSummarySchema } from "../schemas/session-schemas.js";

/** A listed session as the API shows it. */
export function summaryOfInfo(info: StoredSessionInfo): z.infer<typeof sessionSummarySchema> {
  return {
    id: info.id,
    ...(info.title !== undefined ? { title: info.title } : {}),
    ...(info.name !== undefined ? { name: info.name } : {}),
    cwd: info.cwd,
    created: info.created.toISOString(),
    modified: info.modified.toISOString(),
    messageCount: info.messageCount,
    ...(info.parentSession !== undefined ? { parentSession: info.parentSession } : {}),
  };
}

/** An open session as a list would show it. */
export function summaryOfSession(
  session: Session,
  now: Date,
): z.infer<typeof sessionSummarySchema> {
  const header = session.getHeader();
  const title = session.getTitle();
  const name = session.getSessionName();
  const created = Date.parse(header.timestamp);
  return {
    id: session.id,
    ...(title !== undefined ? { title } : {}),
    ...(name !== undefined ? { name } : {}),
    cwd: header.cwd ?? "",
    created: new Date(Number.isNaN(created) ? now.getTime() : created).toISOString(),
    modified: now.toISOString(),
    messageCount: session.getEntries().filter((e) => e.type === "message").length,
    ...(header.parentSession !== undefined ? { parentSession: header.parentSession } : {}),
  };
}

/** One session in detail: header, title, leaf, counts, usage. */
export function detailOfSession(
  session: Session,
  activeRunId: string | undefined,
): z.infer<typeof sessionDetailSchema> {
  const header = session.getHeader();
  const entries = session.getEntries();
  const title = session.getTitle();
  const name = session.getSessionName();
  return {
    id: session.id,
    cwd: header.cwd ?? "",
    ...(title !== undefined ? { title } : {}),
    ...(name !== undefined ? { name } : {}),
    created: header.timestamp,
    ...(header.parentSession !== undefined ? { parentSession: header.parentSession } : {}),
    leafId: session.getLeafId(),
    entryCount: entries.length,
    messageCount: entries.filter((e) => e.type === "message").length,
    usage: sessionUsage(session),
    ...(activeRunId !== undefined ? { activeRunId } : {}),
  };
}
