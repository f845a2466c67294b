import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The HTTP statuses the server answers errors with. */
export type ApiErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 500 | 503 | 507;

/**
 * An error the server answers as `{ error: { code, message } }` with `status`. Every other
 * thrown value is mapped to one in one place ({@link toApiError}).
 */
export class ApiError extends ArborError {
  override readonly name = "ApiError";

  /**
   * @param status - the HTTP status
   * @param code - a stable machine-readable code (`not_found`, `session_busy`, …)
   * @param message - what was wrong and what to do, safe to show a client
   */
  constructor(
    readonly status: ApiErrorStatus,
    code: string,
    message: string,
  ) {
    super(code, message);
  }

  /** Tells whether a value is an ApiError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<ApiError>("@arbor/server:ApiError");
}

/** The body of every error response. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/** The body an {@link ApiError} is answered with. */
export function errorBody(error: ApiError): ErrorBody {
  return { error: { code: error.code, message: error.message } };
}
