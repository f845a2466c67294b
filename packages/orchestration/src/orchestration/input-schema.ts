import { Ajv } from "ajv";

/** A sub-agent's input schema, compiled: a validator, or why the schema cannot be used. */
export type CompiledInputSchema =
  | { ok: true; validate: (value: unknown) => string | undefined }
  | { ok: false; reason: string };

const ajv = new Ajv({
  strict: false,
  allErrors: true,
  // two agents may reuse one `$id`; nothing is printed
  addUsedSchema: false,
  logger: false,
});

/**
 * Compiles the `inputSchema` of an agent (a JSON schema, draft-07) into a validator of
 * the arguments of its `agent__<name>` tool. The schema must describe an object, since
 * tool arguments are one.
 */
export function compileInputSchema(schema: Record<string, unknown>): CompiledInputSchema {
  if (schema.type !== "object") {
    return { ok: false, reason: 'a tool takes an object: the schema needs type: "object"' };
  }
  try {
    const check = ajv.compile(schema);
    return {
      ok: true,
      validate: (value) =>
        check(value) ? undefined : ajv.errorsText(check.errors, { dataVar: "arguments" }),
    };
  } catch (error) {
    return {
      ok: false,
      reason: `not a usable JSON schema (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}
