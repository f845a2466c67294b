import { z } from "zod";

/**
 * How `arbor-server` runs the extensions its agents name (the config file's `extensions`
 * section). Every field has a default.
 */
export const serverExtensionSettingsSchema = z.strictObject({
  /**
   * The longest an extension's `ctx.ui` request waits for a client's answer, in ms; after
   * it the request resolves to no answer (`undefined`). A shorter `timeoutMs` an extension
   * asks for wins; a longer one is cut to this.
   */
  uiTimeoutMs: z.number().int().min(100).max(86_400_000).default(300_000),
  /** How long one handler, factory or command may take, in ms (0: no limit). */
  handlerTimeoutMs: z.number().int().min(0).max(3_600_000).default(10_000),
});

/** The extension settings, with defaults applied. */
export type ServerExtensionSettings = z.output<typeof serverExtensionSettingsSchema>;

/** The default extension settings. */
export const DEFAULT_EXTENSION_SETTINGS: ServerExtensionSettings =
  serverExtensionSettingsSchema.parse({});
