import { z } from "zod";
import { ExtensionApiError } from "./errors.js";

/**
 * Parses an argument an extension passed to the API.
 * @throws ExtensionApiError `invalid_input` naming `what` and every problem
 */
export function checkInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ExtensionApiError(
      "invalid_input",
      `${what} is invalid: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data;
}
