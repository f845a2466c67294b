import { createRequire } from "node:module";
import { createJiti } from "jiti";
import type { ExtensionFactory } from "./extension-api.js";

/** Imports a module by absolute path and resolves to its namespace; a seam for tests. */
export type ModuleImporter = (path: string) => Promise<unknown>;

/** Options of {@link createModuleImporter}. */
export interface ModuleImporterOptions {
  /**
   * Module specifiers to redirect, to absolute paths. By default `zod` points at this
   * package's copy, so an extension in `~/.arbor/extensions/` can use it with no install.
   */
  aliases?: Record<string, string>;
}

/**
 * Makes the importer the runner uses by default: jiti, so TypeScript and ESM or CommonJS
 * JavaScript load without a build step. Modules are not cached, so a reload sees edits.
 */
export function createModuleImporter(options: ModuleImporterOptions = {}): ModuleImporter {
  const jiti = createJiti(import.meta.url, {
    moduleCache: false,
    fsCache: false,
    interopDefault: false,
    alias: options.aliases ?? defaultAliases(),
  });
  return (path) => jiti.import(path);
}

function defaultAliases(): Record<string, string> {
  try {
    return { zod: createRequire(import.meta.url).resolve("zod") };
  } catch {
    return {};
  }
}

/**
 * Takes the factory out of an imported module: its default export, which must be a
 * function. Throws an `Error` saying what is wrong otherwise.
 */
export function factoryFromModule(module: unknown): ExtensionFactory {
  const exported =
    typeof module === "object" && module !== null && "default" in module
      ? (module as { default: unknown }).default
      : undefined;
  if (exported === undefined)
    throw new Error("the module has no default export; export the extension factory as default");
  if (typeof exported !== "function")
    throw new Error(
      `the default export is ${exported === null ? "null" : `a ${typeof exported}`}, not a function (arbor: ExtensionAPI) => void`,
    );
  return exported as ExtensionFactory;
}
