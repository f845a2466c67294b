import type { FileChange } from "./checkpoint-schema.js";
import type { PlannedWrite, RestorePlan } from "./restore-files.js";
import { nulFields } from "./shadow-git.js";

const STATUS = {
  A: "added",
  M: "modified",
  D: "deleted",
  T: "type_changed",
} as const satisfies Record<string, FileChange["status"]>;

/** One line of `git diff-tree --raw`. */
interface RawChange {
  fromMode: string;
  toMode: string;
  toSha: string;
  status: keyof typeof STATUS;
  path: string;
}

/** Parses `git diff-tree -r -z --raw --no-renames` output. */
function rawChanges(raw: Buffer): RawChange[] {
  const fields = nulFields(raw);
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [fromMode = "", toMode = "", , toSha = "", letter = ""] = (fields[i] ?? "")
      .slice(1)
      .split(" ");
    const status = (letter in STATUS ? letter : "M") as keyof typeof STATUS;
    changes.push({ fromMode, toMode, toSha, status, path: fields[i + 1] ?? "" });
  }
  return changes;
}

/** How two trees differ, from `git diff-tree -r -z --raw --no-renames` output. */
export function fileChanges(raw: Buffer): FileChange[] {
  return rawChanges(raw).map(({ path, status }) => ({ path, status: STATUS[status] }));
}

/**
 * The deletes and writes that turn the first tree of a raw diff into the second. Submodule
 * links (a nested repository) are neither deleted nor written: they belong to their own git.
 */
export function restorePlan(raw: Buffer): RestorePlan {
  const plan: RestorePlan = { deletes: [], writes: [] };
  for (const change of rawChanges(raw)) {
    const fromFile = change.fromMode !== "000000" && change.fromMode !== "160000";
    const toFile = change.toMode !== "000000" && change.toMode !== "160000";
    if (fromFile && !toFile) plan.deletes.push(change.path);
    if (toFile) {
      const write: PlannedWrite = {
        path: change.path,
        mode: change.toMode,
        sha: change.toSha,
        added: !fromFile,
      };
      plan.writes.push(write);
    }
  }
  return plan;
}
