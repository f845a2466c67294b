import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { safeParseJson, withSharedFileLock } from "@arbor/session-store";
import { ApprovalError } from "./approval-error.js";
import { type AllowRule, type ApprovalFile, approvalFileSchema } from "./approval-schema.js";

/** The file, under Arbor's home, that remembers the allow rules of each project. */
export const APPROVAL_FILE_NAME = "approvals.json";

/** The approvals file of an Arbor home directory. */
export function approvalFilePath(arborDir: string): string {
  return join(arborDir, APPROVAL_FILE_NAME);
}

/**
 * Reads the approvals file; a missing file is an empty one.
 * @throws ApprovalError when it cannot be read or is not the documented shape
 */
export async function readApprovalFile(file: string): Promise<ApprovalFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, projects: {} };
    throw new ApprovalError("approval_file_io", `cannot read ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  const json = safeParseJson(text);
  if (!json.ok)
    throw new ApprovalError("invalid_approval_file", `${file} is not JSON: ${json.error}`);
  const parsed = approvalFileSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join(".") : "(the whole file)";
    throw new ApprovalError(
      "invalid_approval_file",
      `${file}: field ${field}: ${issue?.message ?? "invalid"}. Fix it or delete the file (remembered approvals are then asked again).`,
    );
  }
  return parsed.data;
}

/** The allow rules remembered for a project. */
export async function projectAllowRules(
  file: string,
  projectRealPath: string,
): Promise<AllowRule[]> {
  return (await readApprovalFile(file)).projects[projectRealPath]?.allow ?? [];
}

/**
 * Remembers an allow rule for a project, keeping every other entry. Read and written under
 * the file's cross-process lock, so two Arbor processes remembering rules at once keep
 * both; written to a temporary file and renamed, so a crash leaves the old file or the new one.
 * @throws ApprovalError when the existing file is broken (it is not overwritten) or cannot be written
 */
export function rememberAllowRule(
  file: string,
  projectRealPath: string,
  rule: AllowRule,
): Promise<void> {
  return withSharedFileLock(file, async () => {
    const current = await readApprovalFile(file);
    const allow = current.projects[projectRealPath]?.allow ?? [];
    if (allow.some((known) => JSON.stringify(known) === JSON.stringify(rule))) return;
    const next: ApprovalFile = {
      version: 1,
      projects: { ...current.projects, [projectRealPath]: { allow: [...allow, rule] } },
    };
    const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, file);
    } catch (error) {
      throw new ApprovalError("approval_file_io", `cannot write ${file}: ${String(error)}`, {
        cause: error,
      });
    }
  });
}
