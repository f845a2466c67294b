const CODE = "cassette_not_found";

/** A replayed call had no cassette; the message names the key and the file expected. */
export class CassetteNotFoundError extends Error {
  readonly code = CODE;
  /** The request key no cassette was found for. */
  readonly key: string;
  /** Where the cassette was expected. */
  readonly path: string;

  constructor(key: string, path: string) {
    super(
      `no cassette for request key ${key} (expected ${path}); record it first with recordModel(), or check that the request did not change`,
    );
    this.name = "CassetteNotFoundError";
    this.key = key;
    this.path = path;
  }

  /** True for a {@link CassetteNotFoundError} from any copy of this package. */
  static isInstance(value: unknown): value is CassetteNotFoundError {
    return (
      typeof value === "object" && value !== null && (value as { code?: unknown }).code === CODE
    );
  }
}
