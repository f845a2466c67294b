import type { HostFileChange, HostRewind } from "@arbor/orchestration";
import { terminalSafe } from "../output/index.js";

const STATUS_WORDS: Record<HostFileChange["status"], string> = {
  added: "added",
  modified: "modified",
  deleted: "deleted",
  type_changed: "type changed",
};

/** The lines a rewind prints: every path it changed (or, dry, would change), and how to undo it. */
export function rewindLines(rewind: HostRewind, command = "arbor rewind"): string[] {
  const lines: string[] = [];
  const verb = rewind.dryRun ? "would " : "";
  const code = rewind.code;
  if (code) {
    for (const path of code.written) lines.push(`${verb}restore ${terminalSafe(path)}`);
    for (const path of code.deleted) lines.push(`${verb}delete ${terminalSafe(path)}`);
    for (const kept of code.kept) {
      lines.push(`${verb}keep ${terminalSafe(kept.path)} (${kept.reason.replaceAll("_", " ")})`);
    }
    if (code.written.length + code.deleted.length === 0) {
      lines.push(
        rewind.dryRun ? "the files would stay as they are" : "the files were already there",
      );
    }
  }
  if (!code && rewind.to === "both") {
    lines.push("no checkpoint knows the files there (no tool changed them); they stay as they are");
  }
  if (rewind.navigation) lines.push(`moved to ${rewind.navigation.newLeafId ?? "(the start)"}`);
  else if (rewind.dryRun && rewind.to !== "code")
    lines.push(`would move to ${rewind.entryId ?? "(the start)"}`);
  if (code?.beforeEntryId) {
    lines.push(`undo: ${command} --code ${code.beforeEntryId} (the files as they were)`);
  }
  return lines;
}

/** One line per changed path: its status and path. */
export function diffLines(changes: readonly HostFileChange[]): string[] {
  if (changes.length === 0) return ["no file changed"];
  return changes.map(
    (change) => `${STATUS_WORDS[change.status].padEnd(12)} ${terminalSafe(change.path)}`,
  );
}
