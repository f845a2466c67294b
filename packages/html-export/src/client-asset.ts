import { readFileSync } from "node:fs";
import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** The page script and stylesheet, bundled at build time. */
export interface ClientAsset {
  script: string;
  style: string;
}

let cached: ClientAsset | undefined;

/** The package's build output is a problem: the page script is missing. */
export class ClientAssetMissingError extends ArborError {
  override readonly name = "ClientAssetMissingError";
  declare readonly code: "client_asset_missing";

  /**
   * @param message - which file is missing and how to get it back
   * @param options - `cause`: the failed read
   */
  constructor(message: string, options?: ErrorOptions) {
    super("client_asset_missing", message, options);
  }

  /** True for a `ClientAssetMissingError` from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<ClientAssetMissingError>(
    "@arbor/html-export:ClientAssetMissingError",
  );
}

/**
 * Loads the bundled page assets once. Both `src/*.ts` and the built `dist/index.js` sit
 * one folder below the package root, so the same relative URL finds `dist/client/`.
 */
export function loadClientAsset(): ClientAsset {
  if (cached) return cached;
  try {
    cached = {
      script: readFileSync(new URL("../dist/client/app.js", import.meta.url), "utf8"),
      style: readFileSync(new URL("../dist/client/app.css", import.meta.url), "utf8"),
    };
  } catch (cause) {
    throw new ClientAssetMissingError(
      "The bundled page script is missing from dist/client; run `pnpm --filter @arbor/html-export build`.",
      { cause },
    );
  }
  return cached;
}
