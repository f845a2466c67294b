const MARKER = Symbol.for("arbor.providers.error");

/**
 * Base of the errors `@arbor/providers` throws for misuse (model failures are `error`
 * events, never thrown). `code` is stable; `isInstance` works across duplicated copies.
 */
export class ProvidersError extends Error {
  readonly [MARKER] = true;
  /** A stable machine-readable code. */
  readonly code: string;

  /**
   * @param code - the stable code of the concrete error
   * @param message - what was wrong and what to do about it
   */
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.name = "ProvidersError";
  }

  /** True for any error of this package, even from another copy of it. */
  static isInstance(value: unknown): value is ProvidersError {
    return typeof value === "object" && value !== null && MARKER in value;
  }
}

/** A model was configured wrongly, e.g. an adapter got neither a client nor an API key. */
export class ModelConfigError extends ProvidersError {
  constructor(message: string) {
    super("model_config", message);
    this.name = "ModelConfigError";
  }

  /** True for a {@link ModelConfigError} from any copy of this package. */
  static override isInstance(value: unknown): value is ModelConfigError {
    return ProvidersError.isInstance(value) && value.code === "model_config";
  }
}
