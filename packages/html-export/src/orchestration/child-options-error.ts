import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * Thrown when `withChildren` (or `exportSessionTreeToHtml`) gets a limit that is not a
 * whole number of zero or more: `maxDepth` or `maxEntries`.
 */
export class ChildOptionsError extends ArborError {
  override readonly name = "ChildOptionsError";
  declare readonly code: "invalid_child_options";

  constructor(
    /** The option at fault. */
    readonly field: "maxDepth" | "maxEntries",
    /** The value given. */
    readonly value: unknown,
  ) {
    super(
      "invalid_child_options",
      `withChildren.${field} must be a whole number of 0 or more; got ${String(value)}.`,
    );
  }

  /** Whether an error is a {@link ChildOptionsError}, across copies of this package. */
  static override readonly isInstance = arborErrorGuard<ChildOptionsError>(
    "@arbor/html-export:ChildOptionsError",
  );
}

/** Returns a limit, or its default when absent; throws {@link ChildOptionsError} when it is bad. */
export function checkLimit(
  field: "maxDepth" | "maxEntries",
  value: number | undefined,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw new ChildOptionsError(field, value);
  return value;
}
