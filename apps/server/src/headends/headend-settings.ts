import { z } from "zod";

/**
 * Which headends the server offers beside its native API: the OpenAI-compatible routes
 * (`/v1/chat/completions`, `/v1/responses`, `/v1/models`), MCP at `/mcp` and A2A at `/a2a`.
 * Each is on unless switched off.
 */
export const headendSettingsSchema = z.strictObject({
  openai: z.boolean().default(true),
  mcp: z.boolean().default(true),
  a2a: z.boolean().default(true),
});

/** Which headends the server offers (see {@link headendSettingsSchema}). */
export type HeadendSettings = z.output<typeof headendSettingsSchema>;

/** Every headend on. */
export const ALL_HEADENDS: HeadendSettings = { openai: true, mcp: true, a2a: true };
