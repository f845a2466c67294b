import { arborMarkerGuard, stampArborMarker } from "./arbor-marker.js";

/**
 * Base of the errors `@arbor/providers` throws for misuse (model failures are `error`
 * events, never thrown). `code` is stable; `isInstance` works across duplicated copies.
 * It carries the `ArborError` marker without extending the class (see `arbor-marker.ts`),
 * so `ArborError.isInstance()` is true for it.
 */
export class ProvidersError extends Error {
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
    stampArborMarker(this, new.target);
  }

  /** True for any error of this package, even from another copy of it. */
  static readonly isInstance = arborMarkerGuard<ProvidersError>("@arbor/providers:ProvidersError");
}

/** A model was configured wrongly, e.g. an adapter got neither a client nor an API key. */
export class ModelConfigError extends ProvidersError {
  constructor(message: string) {
    super("model_config", message);
    this.name = "ModelConfigError";
  }

  /** True for a {@link ModelConfigError} from any copy of this package. */
  static override readonly isInstance = arborMarkerGuard<ModelConfigError>(
    "@arbor/providers:ModelConfigError",
  );
}

/**
 * An API key (or another credential header) cannot be sent: it is empty or holds
 * whitespace, control or non-ASCII characters. The message names the field, the key's
 * length and the first problem, never the key itself.
 */
export class InvalidApiKeyError extends ProvidersError {
  /** Which option was wrong, e.g. `apiKey of createOpenAIChatModel(gpt-4.1)`. */
  readonly field: string;
  /** What was wrong, e.g. `(length 53) contains a line break at position 52`. */
  readonly problem: string;

  /**
   * @param field - which option held the credential
   * @param problem - what is wrong with it, without its value
   */
  constructor(field: string, problem: string) {
    super(
      "invalid_api_key",
      `${field} ${problem}. Credentials travel in an HTTP header and may only hold printable ASCII without spaces; check how the key was read (a trailing newline from a file or an environment file is common).`,
    );
    this.name = "InvalidApiKeyError";
    this.field = field;
    this.problem = problem;
  }

  /** True for an {@link InvalidApiKeyError} from any copy of this package. */
  static override readonly isInstance = arborMarkerGuard<InvalidApiKeyError>(
    "@arbor/providers:InvalidApiKeyError",
  );
}
