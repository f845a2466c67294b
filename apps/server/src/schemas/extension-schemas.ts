import { z } from "@hono/zod-openapi";
import { uiAnswerSchema } from "../extensions/ui-answer.js";
import { runIdSchema } from "../runs/run-record.js";

/** The `:id` and `:requestId` of `POST /v1/runs/:id/ui/:requestId`. */
export const uiAnswerParamsSchema = z.object({
  id: runIdSchema.openapi({ param: { name: "id", in: "path" } }),
  requestId: z
    .string()
    .min(1)
    .max(128)
    .openapi({ param: { name: "requestId", in: "path" }, example: "ui_0f3a…" }),
});

/**
 * The body of `POST /v1/runs/:id/ui/:requestId`: `{ kind: "select", value }` (one of the
 * options), `{ kind: "confirm", value: true|false }`, `{ kind: "input", value }`, or
 * `{ kind: "dismiss" }` (no answer).
 */
export const uiAnswerBodySchema = uiAnswerSchema.openapi("UiAnswer");

/** `200` of an answered UI request. */
export const uiAnswerResponseSchema = z.object({
  requestId: z.string(),
  outcome: z.enum(["answered", "dismissed"]),
});

/** A command name in a path: as extensions register them, without the slash. */
export const commandNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_:-]{0,63}$/, "a command name (letters, digits, _, - and :)");

/** The `:agent` of `GET /v1/agents/:agent/commands`. */
export const agentParamsSchema = z.object({
  agent: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "agent", in: "path" }, example: "helper" }),
});

/** `GET /v1/agents/:agent/commands`. */
export const agentCommandsResponseSchema = z
  .object({
    agent: z.string(),
    commands: z.array(
      z.object({ name: z.string(), description: z.string(), extension: z.string() }),
    ),
  })
  .openapi("AgentCommands");

/** The `:id` and `:name` of `POST /v1/sessions/:id/commands/:name`. */
export const commandParamsSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "a session id (letters, digits, - and _)")
    .openapi({ param: { name: "id", in: "path" } }),
  name: commandNameSchema.openapi({ param: { name: "name", in: "path" }, example: "plan" }),
});

/** `POST /v1/sessions/:id/commands/:name`. */
export const runCommandBodySchema = z.strictObject({
  /** The agent whose extensions hold the command. */
  agent: z.string().min(1).max(64),
  /** The text after the command's name (`/plan on Design the cache` → `on Design the cache`). */
  args: z.string().default(""),
  /** When the session already has a run: refuse (409), wait behind it, or abort it first. */
  ifBusy: z.enum(["reject", "enqueue", "interrupt"]).default("reject"),
});
