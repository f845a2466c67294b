/**
 * The one error base of Arbor. Every error an Arbor package or app throws at its caller
 * carries a stable machine-readable `code`, a `name` equal to its class's name, and one
 * marker under `Symbol.for("arbor.error")`: the list of its class markers, from
 * `ArborError` down to the concrete class. A class's `isInstance` guard keeps its own
 * class marker under the same symbol. A class marker is spelled
 * `"<package>:<ClassName>"` (`"@arbor/session-store:SessionNotFoundError"`). Because the
 * marker is a registered symbol holding plain strings, `isInstance()` gives the same answer
 * for an error made by another copy of the package (two versions installed side by side),
 * where `instanceof` fails.
 */

/** The registered symbol under which an Arbor error keeps its class markers. */
export const ARBOR_ERROR_MARKER: unique symbol = Symbol.for("arbor.error");

/** The class marker of {@link ArborError} itself; every Arbor error carries it. */
export const ARBOR_ERROR_CLASS = "@arbor/session-store:ArborError";

/** The class markers a value carries, or `undefined` when it is no Arbor error. */
function markersOf(value: unknown): readonly unknown[] | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) {
    return undefined;
  }
  const markers = (value as { [ARBOR_ERROR_MARKER]?: unknown })[ARBOR_ERROR_MARKER];
  return Array.isArray(markers) ? markers : undefined;
}

/**
 * Makes the `isInstance()` of one error class: the one line a subclass needs.
 *
 * @param marker - the class marker, `"<package>:<ClassName>"`
 * @returns a guard that works across duplicated package copies and needs no `this`, so it
 *   can be passed around (`rejects.toSatisfy(SessionNotFoundError.isInstance)`)
 * @example
 * ```ts
 * export class SessionNotFoundError extends SessionStoreError {
 *   static override readonly isInstance = arborErrorGuard<SessionNotFoundError>(
 *     "@arbor/session-store:SessionNotFoundError",
 *   );
 * }
 * ```
 */
export function arborErrorGuard<T>(marker: string): (value: unknown) => value is T {
  const guard = (value: unknown): value is T => markersOf(value)?.includes(marker) === true;
  Object.defineProperty(guard, ARBOR_ERROR_MARKER, { value: marker, enumerable: false });
  return guard;
}

/** A class whose own static `isInstance` may be a guard made by {@link arborErrorGuard}. */
type GuardedClass = { readonly isInstance?: unknown };

/** The marker of the guard a class declares itself (not one it inherits), if any. */
function ownMarker(type: GuardedClass): string | undefined {
  if (!Object.hasOwn(type, "isInstance")) return undefined;
  const guard = type.isInstance as { [ARBOR_ERROR_MARKER]?: unknown } | undefined;
  const marker = typeof guard === "function" ? guard[ARBOR_ERROR_MARKER] : undefined;
  return typeof marker === "string" ? marker : undefined;
}

/**
 * Stamps an error with the Arbor marker: {@link ARBOR_ERROR_CLASS}, the markers of the
 * guards its class and the class's ancestors declare, and any `groups` given. `ArborError`
 * calls it for every subclass; an error class that must keep a built-in base (see the agent
 * errors of `@arbor/turn-runner`) calls it from its constructor with `new.target`.
 *
 * @param error - the error being constructed
 * @param type - its concrete class (`new.target`)
 * @param groups - markers of groups the class belongs to without a common base class
 */
export function stampArborError(error: Error, type: GuardedClass, groups: string[] = []): void {
  const chain: string[] = [];
  for (let at: unknown = type; typeof at === "function"; at = Object.getPrototypeOf(at)) {
    const marker = ownMarker(at as GuardedClass);
    if (marker !== undefined) chain.unshift(marker);
  }
  const markers = [...new Set([ARBOR_ERROR_CLASS, ...groups, ...chain])];
  Object.defineProperty(error, ARBOR_ERROR_MARKER, {
    value: Object.freeze(markers),
    enumerable: false,
    configurable: true,
  });
}

/**
 * The base of every Arbor error. Subclasses pass a stable `code` and a message (what was
 * wrong and what to do) and declare their own guard in one line; `name` becomes the
 * concrete class's name, and `cause` is passed through to `Error`.
 *
 * Use `SomeError.isInstance(value)` rather than `instanceof`: it also recognises errors
 * made by another copy of the package.
 *
 * @example
 * ```ts
 * export class QuotaSpentError extends ArborError {
 *   static override readonly isInstance = arborErrorGuard<QuotaSpentError>("@arbor/example:QuotaSpentError");
 *   constructor(options?: ErrorOptions) {
 *     super("quota_spent", "the monthly quota is spent; raise it or wait", options);
 *   }
 * }
 * ```
 */
export abstract class ArborError extends Error {
  /** True for any Arbor error, from any copy of any Arbor package. */
  static readonly isInstance = arborErrorGuard<ArborError>(ARBOR_ERROR_CLASS);

  /** A stable machine-readable code, kept across versions so callers can branch on it. */
  readonly code: string;

  /**
   * @param code - the stable code of the concrete error (not empty)
   * @param message - what was wrong and what to do about it
   * @param options - `cause`: the error that led to this one
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = classNameOf(new.target);
    stampArborError(this, new.target);
  }
}

/**
 * The concrete class's name: taken from its own marker when it declares one (a bundler may
 * rename a class whose name collides with an import), from the class otherwise.
 */
function classNameOf(type: GuardedClass & { name: string }): string {
  const marker = ownMarker(type);
  return marker === undefined ? type.name : marker.slice(marker.lastIndexOf(":") + 1);
}
