import { z } from "zod";
import { describeError } from "./errors.js";

/** Names of metadata blocks: the keys of the `final_meta` tool's arguments and of the result. */
export const FINAL_META_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A metadata block an extension requires beside every final report, as it passes it to
 * {@link ExtensionAPI.requireFinalMeta}. A run succeeds only when its report and every
 * required block validate.
 */
export interface FinalMetaDefinition<S extends z.ZodType = z.ZodType> {
  /** 1-64 of `[a-zA-Z0-9_-]`, unique across extensions: the block's key. */
  name: string;
  /** Told to the model: what the block holds and how to fill it in. */
  description: string;
  /** Validates the block; its JSON schema (input side) is what the model is shown. */
  schema: S;
}

/** A required metadata block as the turn runner reads it. */
export interface RegisteredFinalMeta {
  name: string;
  description: string;
  /** The zod schema the block is validated with. */
  schema: z.ZodType;
  /** The JSON schema of the block (zod's `toJSONSchema`, input side, no `$schema`). */
  jsonSchema: Record<string, unknown>;
  extensionName: string;
  extensionPath: string;
}

/** Checks a `requireFinalMeta` definition and derives its JSON schema. */
export function validateFinalMeta(
  definition: FinalMetaDefinition,
): { ok: true; jsonSchema: Record<string, unknown> } | { ok: false; error: string } {
  if (typeof definition !== "object" || definition === null)
    return { ok: false, error: "requireFinalMeta needs an object { name, description, schema }" };
  const name = typeof definition.name === "string" ? definition.name : String(definition.name);
  if (!FINAL_META_NAME_PATTERN.test(name))
    return {
      ok: false,
      error: `final meta name ${JSON.stringify(definition.name)} must be 1-64 of [a-zA-Z0-9_-]`,
    };
  if (typeof definition.description !== "string" || definition.description.trim() === "")
    return { ok: false, error: `final meta ${name} needs a description string` };
  if (!isZodSchema(definition.schema))
    return { ok: false, error: `final meta ${name}: schema must be a zod schema` };
  try {
    const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(definition.schema, {
      io: "input",
    }) as Record<string, unknown>;
    return { ok: true, jsonSchema };
  } catch (error) {
    return {
      ok: false,
      error: `final meta ${name}: its schema cannot be described as JSON schema: ${describeError(error)}`,
    };
  }
}

/** Duck-typed, so a schema from another copy of zod v4 passes too. */
function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof (value as { safeParse?: unknown } | undefined)?.safeParse === "function" &&
    typeof (value as { _zod?: unknown } | undefined)?._zod === "object"
  );
}
