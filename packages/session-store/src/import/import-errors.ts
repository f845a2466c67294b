import { arborErrorGuard, SessionStoreError } from "../errors/index.js";

/**
 * Why a source cannot be imported at all: it cannot be read, it is binary, it holds no
 * session, it is of a format (or a version of one) no reader knows, it is larger than the
 * reader holds in memory (`too_large`), or reading it needs an optional package that is
 * not installed (`dependency_missing`: sql.js for opencode's database).
 */
export type ImportProblem =
  | "unreadable"
  | "binary"
  | "empty"
  | "not_recognized"
  | "unsupported_version"
  | "too_large"
  | "dependency_missing";

/** A source file or folder that cannot be imported. Nothing was written to the store. */
export class SessionImportError extends SessionStoreError {
  override readonly name = "SessionImportError";
  constructor(
    readonly path: string,
    readonly problem: ImportProblem,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`import_${problem}`, `cannot import ${path}: ${detail}`, options);
  }

  /** Tells whether a value is a SessionImportError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<SessionImportError>(
    "@arbor/session-store:SessionImportError",
  );
}
