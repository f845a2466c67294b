import { z } from "zod";

/**
 * Events the server adds to a run's event sequence beside the turn runner's, when the
 * agent has extensions. Like the others they carry `runId` and `seq` and are sent on the
 * run's SSE stream with `event: <type>`.
 */

/** An extension asks the client something; answer with `POST /v1/runs/:id/ui/:requestId`. */
export const uiRequestEventSchema = z.object({
  type: z.literal("ui_request"),
  requestId: z.string(),
  kind: z.enum(["select", "confirm", "input"]),
  extensionName: z.string(),
  title: z.string(),
  /** `select`: the options, one of which is the answer. */
  options: z.array(z.string()).optional(),
  /** `confirm`: the question's text. */
  message: z.string().optional(),
  /** `input`: a hint shown in the empty field. */
  placeholder: z.string().optional(),
  /** When the request resolves to no answer if nobody answered (ISO time). */
  expiresAt: z.iso.datetime(),
});

/** How a UI request ended. */
export const UI_OUTCOMES = ["answered", "dismissed", "timeout", "cancelled"] as const;

/** A UI request is over: answered, dismissed, timed out or cancelled (the run stopped). */
export const uiResolvedEventSchema = z.object({
  type: z.literal("ui_resolved"),
  requestId: z.string(),
  outcome: z.enum(UI_OUTCOMES),
});

/** An extension's `ctx.ui.notify`. */
export const uiNotifyEventSchema = z.object({
  type: z.literal("ui_notify"),
  extensionName: z.string(),
  message: z.string(),
  level: z.enum(["info", "warning", "error"]),
});

/** An extension failed (threw, timed out, returned something invalid); the run goes on. */
export const extensionErrorEventSchema = z.object({
  type: z.literal("extension_error"),
  extensionName: z.string(),
  event: z.string(),
  kind: z.string(),
  error: z.string(),
});

/** An extension command ran (`POST /v1/sessions/:id/commands/:name`). */
export const commandEndEventSchema = z.object({
  type: z.literal("command_end"),
  name: z.string(),
  /** `prompt`: the command returned text, sent as the next prompt (its events follow). */
  status: z.enum(["done", "prompt"]),
});

/** An extension tool's progress (`ctx.onUpdate`) while it runs; never sent to the model. */
export const toolUpdateEventSchema = z.object({
  type: z.literal("tool_update"),
  toolCallId: z.string(),
  toolName: z.string(),
  extensionName: z.string(),
  /** What the tool has so far: text and image blocks. */
  content: z.array(z.looseObject({ type: z.string() })),
  details: z.unknown().optional(),
});

/** An extension command moved the agent to another session (`newSession`, `fork`). */
export const sessionSwitchedEventSchema = z.object({
  type: z.literal("session_switched"),
  sessionId: z.string(),
});

/** Every event the server adds for extensions. */
export const extensionRunEventSchema = z.discriminatedUnion("type", [
  uiRequestEventSchema,
  uiResolvedEventSchema,
  uiNotifyEventSchema,
  extensionErrorEventSchema,
  commandEndEventSchema,
  toolUpdateEventSchema,
  sessionSwitchedEventSchema,
]);

/** An event the server adds for extensions, before its envelope (`runId`, `seq`). */
export type ExtensionRunEvent = z.infer<typeof extensionRunEventSchema>;
/** A `ui_request` event. */
export type UiRequestEvent = z.infer<typeof uiRequestEventSchema>;
/** How a UI request ended. */
export type UiOutcome = (typeof UI_OUTCOMES)[number];
