import { z } from "zod";
import { describeError } from "./errors.js";
import type { ExtensionCommandDefinition, ExtensionToolDefinition } from "./extension-api.js";

/** Tool names providers accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** Command names: a letter or digit, then letters, digits, `_`, `-` or `:`. */
export const COMMAND_NAME_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_:-]*$/;

/** Checks a tool registration and derives its JSON schema. */
export function validateTool(
  tool: ExtensionToolDefinition,
): { ok: true; jsonSchema: Record<string, unknown> } | { ok: false; error: string } {
  if (typeof tool !== "object" || tool === null)
    return {
      ok: false,
      error: "registerTool needs an object { name, description, parameters, execute }",
    };
  const name = typeof tool.name === "string" ? tool.name : String(tool.name);
  if (!TOOL_NAME_PATTERN.test(name))
    return {
      ok: false,
      error: `tool name ${JSON.stringify(tool.name)} must be 1-64 of [a-zA-Z0-9_-]`,
    };
  if (typeof tool.description !== "string")
    return { ok: false, error: `tool ${name} needs a description string` };
  if (typeof tool.execute !== "function")
    return { ok: false, error: `tool ${name} needs an execute function` };
  if (!isZodObject(tool.parameters))
    return {
      ok: false,
      error: `tool ${name}: parameters must be a zod object schema (z.object({...}))`,
    };
  try {
    const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(tool.parameters, {
      io: "input",
    }) as Record<string, unknown>;
    return { ok: true, jsonSchema };
  } catch (error) {
    return {
      ok: false,
      error: `tool ${name}: its parameters cannot be described as JSON schema: ${describeError(error)}`,
    };
  }
}

/** Checks a command registration; a leading slash on the name is dropped. */
export function validateCommand(
  rawName: string,
  command: ExtensionCommandDefinition,
): { ok: true; name: string } | { ok: false; error: string } {
  const name = typeof rawName === "string" ? rawName.replace(/^\//, "") : "";
  if (!COMMAND_NAME_PATTERN.test(name))
    return {
      ok: false,
      error: `command name ${JSON.stringify(rawName)} must be a letter or digit followed by letters, digits, _, - or :`,
    };
  if (typeof command !== "object" || command === null || typeof command.handler !== "function")
    return { ok: false, error: `command /${name} needs { description, handler }` };
  if (typeof command.description !== "string")
    return { ok: false, error: `command /${name} needs a description string` };
  return { ok: true, name };
}

/** Duck-typed, so a schema from another copy of zod v4 passes too. */
function isZodObject(value: unknown): value is z.ZodObject {
  const internals = (value as { _zod?: { def?: { type?: unknown } } } | undefined)?._zod;
  return (
    typeof (value as { safeParse?: unknown } | undefined)?.safeParse === "function" &&
    internals?.def?.type === "object"
  );
}
