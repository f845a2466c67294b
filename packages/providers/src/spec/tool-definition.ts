import { z } from "zod";
import type { ToolDefinition } from "./request.js";

/**
 * Builds a {@link ToolDefinition} from a zod object schema using zod v4's JSON schema
 * export, so callers that validate arguments with zod describe them once.
 *
 * @example
 * ```ts
 * const readFile = toolFromZod("read_file", "Reads a UTF-8 file", z.object({ path: z.string() }));
 * ```
 */
export function toolFromZod(
  name: string,
  description: string,
  parameters: z.ZodObject,
): ToolDefinition {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(parameters, { io: "input" }) as Record<
    string,
    unknown
  >;
  return { name, description, parameters: schema };
}
