import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** A replayed call had no cassette; the message names the key and the file expected. */
export class CassetteNotFoundError extends ArborError {
  declare readonly code: "cassette_not_found";
  /** The request key no cassette was found for. */
  readonly key: string;
  /** Where the cassette was expected. */
  readonly path: string;

  constructor(key: string, path: string) {
    super(
      "cassette_not_found",
      `no cassette for request key ${key} (expected ${path}); record it first with recordModel(), or check that the request did not change`,
    );
    this.name = "CassetteNotFoundError";
    this.key = key;
    this.path = path;
  }

  /** True for a {@link CassetteNotFoundError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<CassetteNotFoundError>(
    "@arbor/test-harness:CassetteNotFoundError",
  );
}
