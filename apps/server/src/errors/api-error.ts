const marker = Symbol.for("@arbor/server.api-error");

/** The HTTP statuses the server answers errors with. */
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 500 | 503;

/**
 * An error the server answers as `{ error: { code, message } }` with `status`. Every other
 * thrown value is mapped to one in one place ({@link toApiError}).
 */
export class ApiError extends Error {
  readonly [marker] = true;
  override readonly name = "ApiError";

  /**
   * @param status - the HTTP status
   * @param code - a stable machine-readable code (`not_found`, `session_busy`, …)
   * @param message - what was wrong and what to do, safe to show a client
   */
  constructor(
    readonly status: ApiErrorStatus,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  /** Tells whether a value is an ApiError, even one from another copy of this package. */
  static isInstance(value: unknown): value is ApiError {
    return typeof value === "object" && value !== null && marker in value;
  }
}

/** The body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** The body an {@link ApiError} is answered with. */
export function errorBody(error: ApiError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
