import type { ImportSummary } from "@arbor/session-store/import";
import { terminalSafe } from "../output/index.js";

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * The summary `arbor import` prints: a row per session (tool, id, what happened, entries,
 * lines kept raw), a row per skipped file with the reason, and the totals.
 */
export function formatImportSummary(summary: ImportSummary, dryRun: boolean): string {
  const parts: string[] = [];
  if (summary.sessions.length > 0) {
    const rows = [["TOOL", "SESSION", dryRun ? "WOULD BE" : "STATUS", "ENTRIES", "RAW", "SOURCE"]];
    for (const s of summary.sessions) {
      rows.push([
        s.tool,
        terminalSafe(s.id),
        s.status,
        String(s.report.entries),
        String(s.report.raw),
        terminalSafe(s.path),
      ]);
    }
    parts.push(table(rows));
  }
  const diverged = summary.sessions.filter((s) => s.status === "diverged");
  for (const s of diverged)
    parts.push(`${terminalSafe(s.id)} was left as it is: ${s.reason ?? ""}`);
  if (summary.skipped.length > 0) {
    const rows = [["SKIPPED", "REASON"]];
    for (const s of summary.skipped) rows.push([terminalSafe(s.path), terminalSafe(s.reason)]);
    parts.push(table(rows));
  }
  const count = (status: string) => summary.sessions.filter((s) => s.status === status).length;
  const entries = summary.sessions.reduce((n, s) => n + s.report.entries, 0);
  const raw = summary.sessions.reduce((n, s) => n + s.report.raw, 0);
  const heldBack = summary.sessions.reduce((n, s) => n + (s.heldBack ?? 0), 0);
  if (heldBack > 0) {
    parts.push(
      `${heldBack} entries held back: answers still being written (their files changed in the last minute); import again once they are complete to store them`,
    );
  }
  parts.push(
    `${counted(summary.sessions.length, "session")} (${count("created")} new, ${count("updated")} updated, ${count("unchanged")} unchanged, ${count("diverged")} left as they were), ${counted(entries, "entry", "entries")}, ${counted(raw, "line")} kept raw, ${counted(summary.skipped.length, "file")} skipped${dryRun ? "; dry run: nothing was written" : ""}`,
  );
  return `${parts.join("\n\n")}\n`;
}

/** `1 session`, `2 sessions`: a count with its noun in the right number. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
