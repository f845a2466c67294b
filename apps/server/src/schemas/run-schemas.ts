import { z } from "@hono/zod-openapi";
import { runIdSchema, runRecordSchema } from "../runs/run-record.js";

/** An image sent with a prompt. */
export const promptImageSchema = z.strictObject({
  type: z.literal("image").default("image"),
  /** Base64 bytes without a `data:` prefix. */
  data: z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, "base64 data"),
  mimeType: z.enum(["image/png", "image/jpeg", "image/gif", "image/webp"]),
});

/** A run id a client names for a run's ancestry: non-empty, without spaces, 200 characters at most. */
const ancestryIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^\S+$/, "must not contain spaces or line breaks");

/** `POST /v1/sessions/:id/runs`. */
export const startRunBodySchema = z.strictObject({
  /** The agent, by the name the server's config gives it. */
  agent: z.string().min(1).max(64),
  prompt: z.string().min(1),
  images: z.array(promptImageSchema).max(16).optional(),
  /** When the session already has a run: refuse (409), wait behind it, or abort it first. */
  ifBusy: z.enum(["reject", "enqueue", "interrupt"]).default("reject"),
  /**
   * The run that asked for this one (an agent calling the API, a headend's request): every
   * event's `ancestry.parentId`.
   */
  parentRunId: ancestryIdSchema.optional(),
  /** The run the whole request started with: every event's `ancestry.originId` (default: this run). */
  originRunId: ancestryIdSchema.optional(),
});

/** `202` of a started run. */
export const startRunResponseSchema = z.object({
  runId: z.string(),
  status: z.string(),
  eventsUrl: z.string(),
});

/** The `:id` of run routes. */
export const runParamsSchema = z.object({
  id: runIdSchema.openapi({ param: { name: "id", in: "path" } }),
});

/**
 * A run: state, and result once it ended (turn-runner's `OrchestrationResult`: `success`, `reason`,
 * `message`, `finalReport`, `usage`, `cost`, `turns`, `session`).
 */
export const runResponseSchema = runRecordSchema
  .omit({ tenantId: true, result: true })
  .extend({
    result: z
      .looseObject({ success: z.boolean(), runId: z.string(), reason: z.string().optional() })
      .optional(),
  })
  .openapi("Run");

/** `GET /v1/runs/:id/events` query: `after` is `Last-Event-ID` for clients that cannot set headers. */
export const runEventsQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(/^\d{1,15}$/, "an event id")
    .optional(),
});
