import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { safeParseJson, withSharedFileLock } from "@arbor/session-store";
import { z } from "zod";
import { TrustFileError } from "./trust-file-error.js";

/** The file, under Arbor's home, that remembers which projects the user trusted. */
export const TRUST_FILE_NAME = "trusted-projects.json";

/** What the user trusted in one project: the code that was there when they said yes. */
export const projectTrustSchema = z.object({
  /** When the user said yes (ISO 8601). */
  trustedAt: z.string().min(1),
  /** The real path of the project's `.arbor/extensions` (a symlink resolved) at the time. */
  extensionsDir: z.string().min(1),
  /** `sha256:` of the extensions' files at the time; a change asks again. */
  contentHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
});
/** What the user trusted in one project. */
export type ProjectTrust = z.infer<typeof projectTrustSchema>;

/** `trusted-projects.json`: trust per project, keyed by the project's real path. */
export const trustFileSchema = z.object({
  version: z.literal(1),
  projects: z.record(z.string().min(1), projectTrustSchema),
});
/** `trusted-projects.json`. */
export type TrustFile = z.infer<typeof trustFileSchema>;

/** The trust file of an Arbor home directory. */
export function trustFilePath(arborDir: string): string {
  return join(arborDir, TRUST_FILE_NAME);
}

/**
 * Reads the trust file; a missing file is an empty one.
 * @throws TrustFileError when it cannot be read or is not the documented shape
 */
export async function readTrustFile(file: string): Promise<TrustFile> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, projects: {} };
    throw new TrustFileError("trust_file_io", file, `cannot read ${file}: ${String(error)}`, {
      cause: error,
    });
  }
  const json = safeParseJson(text);
  if (!json.ok)
    throw new TrustFileError("invalid_trust_file", file, `${file} is not JSON: ${json.error}`);
  const parsed = trustFileSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.length ? issue.path.join(".") : "(the whole file)";
    throw new TrustFileError(
      "invalid_trust_file",
      file,
      `${file}: field ${field}: ${issue?.message ?? "invalid"}. Fix it or delete the file (projects will be asked about again).`,
    );
  }
  return parsed.data;
}

/**
 * Records the user's trust in a project, keeping every other entry. Read and written under
 * the file's cross-process lock, so two Arbor processes trusting projects at once keep
 * both; written to a temporary file and renamed, so a crash leaves the old file or the
 * new one, never half of one.
 * @throws TrustFileError when the existing file is broken (it is not overwritten) or cannot be written
 */
export function rememberProjectTrust(
  file: string,
  projectRealPath: string,
  trust: ProjectTrust,
): Promise<void> {
  return withSharedFileLock(file, async () => {
    const current = await readTrustFile(file);
    const next: TrustFile = {
      version: 1,
      projects: { ...current.projects, [projectRealPath]: trust },
    };
    const temporary = `${file}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      await rename(temporary, file);
    } catch (error) {
      throw new TrustFileError("trust_file_io", file, `cannot write ${file}: ${String(error)}`, {
        cause: error,
      });
    }
  });
}
