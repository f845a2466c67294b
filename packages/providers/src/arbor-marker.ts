/**
 * The `ArborError` marker of `@arbor/session-store`, spelled the same way, for this
 * package's errors. The main entry of `@arbor/providers` loads zod alone (its
 * `entry-imports` test pins that), so its errors cannot extend `ArborError`; they carry its
 * marker instead: `ArborError.isInstance()` is true for them, and each class's guard
 * answers for that class and its subclasses only, across duplicated package copies. Keep
 * this in step with `packages/session-store/src/errors/arbor-error.ts`.
 */

/** The registered symbol under which an Arbor error keeps its class markers. */
const ARBOR_ERROR_MARKER: unique symbol = Symbol.for("arbor.error");

/** The class marker of `ArborError` itself; every Arbor error carries it. */
const ARBOR_ERROR_CLASS = "@arbor/session-store:ArborError";

/** A class whose own static `isInstance` may be a guard made by {@link arborMarkerGuard}. */
type GuardedClass = { readonly isInstance?: unknown };

/**
 * Makes the `isInstance()` of one error class, as `arborErrorGuard` of
 * `@arbor/session-store` does.
 *
 * @param marker - the class marker, `"@arbor/providers:<ClassName>"`
 * @returns a guard that needs no `this`, so it can be passed around
 */
export function arborMarkerGuard<T>(marker: string): (value: unknown) => value is T {
  const guard = (value: unknown): value is T => {
    if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
    const markers = (value as { [ARBOR_ERROR_MARKER]?: unknown })[ARBOR_ERROR_MARKER];
    return Array.isArray(markers) && markers.includes(marker);
  };
  Object.defineProperty(guard, ARBOR_ERROR_MARKER, { value: marker, enumerable: false });
  return guard;
}

/**
 * Stamps an error with the Arbor marker: `ArborError`'s class marker and the markers of the
 * guards its class and the class's ancestors declare, as `stampArborError` does.
 *
 * @param error - the error being constructed
 * @param type - its concrete class (`new.target`)
 */
export function stampArborMarker(error: Error, type: GuardedClass): void {
  const chain: string[] = [];
  for (let at: unknown = type; typeof at === "function"; at = Object.getPrototypeOf(at)) {
    if (!Object.hasOwn(at, "isInstance")) continue;
    const guard = (at as GuardedClass).isInstance as { [ARBOR_ERROR_MARKER]?: unknown };
    const marker = typeof guard === "function" ? guard[ARBOR_ERROR_MARKER] : undefined;
    if (typeof marker === "string") chain.unshift(marker);
  }
  Object.defineProperty(error, ARBOR_ERROR_MARKER, {
    value: Object.freeze([...new Set([ARBOR_ERROR_CLASS, ...chain])]),
    enumerable: false,
    configurable: true,
  });
}
