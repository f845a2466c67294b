const marker = Symbol.for("arbor.extensions-api.error");

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
export class ExtensionApiError extends Error {
  override readonly name = "ExtensionApiError";
  readonly [marker] = true;

  constructor(
    readonly code: ExtensionApiErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** Tells whether a value is an {@link ExtensionApiError}, from any copy of this package. */
  static isInstance(value: unknown): value is ExtensionApiError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[marker] === true
    );
  }
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
