import { arborErrorGuard } from "@arbor/session-store";
import { OrchestrationError } from "./orchestration-error.js";

/** A model target names a provider the app did not configure. */
export class UnknownProviderError extends OrchestrationError {
  /**
   * @param provider - the name the target used
   * @param known - the providers the app configured
   */
  constructor(
    readonly provider: string,
    readonly known: readonly string[],
  ) {
    super(
      "unknown_provider",
      known.length === 0
        ? `there is no provider named "${provider}": no provider is configured`
        : `there is no provider named "${provider}"; configured providers: ${known.join(", ")}`,
    );
    this.name = "UnknownProviderError";
  }

  /** True for an {@link UnknownProviderError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<UnknownProviderError>(
    "@arbor/orchestration:UnknownProviderError",
  );
}

/** A configured provider has no API key (empty or missing) to send. */
export class MissingApiKeyError extends OrchestrationError {
  /** @param provider - the provider without a key */
  constructor(readonly provider: string) {
    super(
      "missing_api_key",
      `the provider "${provider}" has no API key; set providers.${provider}.apiKey in the options the app passes`,
    );
    this.name = "MissingApiKeyError";
  }

  /** True for a {@link MissingApiKeyError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<MissingApiKeyError>(
    "@arbor/orchestration:MissingApiKeyError",
  );
}
