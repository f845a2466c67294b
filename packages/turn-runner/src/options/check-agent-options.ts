import type { z } from "zod";
import type { AgentSessionOptions } from "../agent-session-options.js";
import { InvalidAgentOptionsError } from "../contracts/index.js";
import { agentSessionOptionsSchema } from "./agent-options-schema.js";

/** A path into the options as people write it: `targets[0].model`, `contextGuard.bufferTokens`. */
export function optionPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text === "" ? String(key) : `.${String(key)}`;
  }
  return text;
}

/** The value at `path` inside `value`, for the error message. */
function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** A short, safe rendering of a rejected value: functions and objects are named, not dumped. */
function shown(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "number" || typeof value === "boolean" || value === undefined)
    return String(value);
  if (typeof value === "string")
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return value === null ? "null" : "an object";
}

/** The error for the first problem zod found, naming the option (or the unknown one). */
function optionError(options: unknown, issue: z.core.$ZodIssue): InvalidAgentOptionsError {
  if (issue.code === "unrecognized_keys") {
    const field = optionPath([...issue.path, issue.keys[0] ?? ""]);
    return new InvalidAgentOptionsError(
      field,
      `AgentSession has no option \`${field}\`; check its spelling against AgentSessionOptions`,
    );
  }
  const field = optionPath(issue.path) || "options";
  const value = shown(valueAt(options, issue.path));
  return new InvalidAgentOptionsError(
    field,
    `AgentSession option \`${field}\` is invalid (${value}): ${issue.message}`,
  );
}

/**
 * Checks every option of `AgentSession` against {@link agentSessionOptionsSchema} — types,
 * ranges, unknown names — before anything is built or stored.
 * @throws InvalidAgentOptionsError naming the first option at fault and why
 */
export function checkAgentOptions(options: AgentSessionOptions): void {
  if (typeof options !== "object" || options === null) {
    throw new InvalidAgentOptionsError("options", "AgentSession needs an options object");
  }
  const parsed = agentSessionOptionsSchema.safeParse(options);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (issue) throw optionError(options, issue);
}
