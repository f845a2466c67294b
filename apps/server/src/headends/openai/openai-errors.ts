import { ApiError } from "../../errors/index.js";

/** The body of an OpenAI error: what every OpenAI SDK reads. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's error `type` for a status. */
function typeOf(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "invalid_request_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** An {@link ApiError} in OpenAI's shape (`{ error: { message, type, param, code } }`). */
export function openAiErrorBody(error: ApiError, param: string | null = null): OpenAiErrorBody {
  return { error: { message: error.message, type: typeOf(error.status), param, code: error.code } };
}

/** An error of a field of the body (400 `invalid_request_error` naming the parameter). */
export class OpenAiParamError extends ApiError {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(400, "invalid_value", message);
  }

  /** Whether an error names a parameter. */
  static isParamError(error: unknown): error is OpenAiParamError {
    return typeof (error as { param?: unknown } | null)?.param === "string";
  }
}

/** 404 `model_not_found` for an agent the server does not have. */
export function modelNotFound(model: string): ApiError {
  return new ApiError(
    404,
    "model_not_found",
    `The model \`${model.slice(0, 200)}\` does not exist; GET /v1/models lists the agents`,
  );
}

/** The paths of the OpenAI-compatible headend (their errors take OpenAI's shape). */
export const OPENAI_PATHS = /^\/v1\/(chat\/completions|responses|models)(\/|$)/;
