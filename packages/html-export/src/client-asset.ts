import { readFileSync } from "node:fs";

/** The page script and stylesheet, bundled at build time. */
export interface ClientAsset {
  script: string;
  style: string;
}

let cached: ClientAsset | undefined;

/** The package's build output is a problem: the page script is missing. */
export class ClientAssetMissingError extends Error {
  override readonly name = "ClientAssetMissingError";
  readonly code = "client_asset_missing";

  /** True for a `ClientAssetMissingError` from any copy of this package. */
  static isInstance(error: unknown): error is ClientAssetMissingError {
    return (
      typeof error === "object" &&
      error !== null &&
      (error as { code?: unknown }).code === "client_asset_missing"
    );
  }
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
