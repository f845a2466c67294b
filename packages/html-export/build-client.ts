import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * Bundles the page script (with `marked` and highlight.js) and its stylesheet into
 * `dist/client/`, where the exporter reads them to inline into every page.
 */
export async function buildClient(): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: ["src/client/app.ts"],
    outdir: "dist/client",
    bundle: true,
    format: "iife",
    platform: "browser",
    target: ["chrome109", "firefox115", "safari16"],
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
}
