import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The stable codes of {@link ExtensionApiError}. */
export type ExtensionApiErrorCode =
  /** A session method was called before the runner had a host (during loading, or after shutdown). */
  | "host_unavailable"
  /** A message or entry an extension sent does not have the documented shape. */
  | "invalid_input"
  /** `exec` could not start the process (not found, not executable, bad cwd). */
  | "spawn_failed"
  /** A session action (`compact`, `newSession`, `fork`, …) was asked of an app that provides none. */
  | "action_unavailable";

/**
 * An error the extension API throws into an extension's own call. It carries a stable
 * `code`; use {@link ExtensionApiError.isInstance} rather than `instanceof`, so it works
 * across duplicated package copies.
 */
export class ExtensionApiError extends ArborError {
  override readonly name = "ExtensionApiError";
  declare readonly code: ExtensionApiErrorCode;

  /**
   * @param code - the stable code of the concrete failure
   * @param message - what was wrong and what to do about it
   * @param options - `cause`: the error that led to this one
   */
  constructor(code: ExtensionApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }

  /** Tells whether a value is an {@link ExtensionApiError}, from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<ExtensionApiError>(
    "@arbor/extensions-api:ExtensionApiError",
  );
}

/** A readable message for anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
