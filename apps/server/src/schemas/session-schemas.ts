import { z } from "@hono/zod-openapi";
import { entryIdSchema, entrySchema } from "./common-schemas.js";

/** A session as lists show it. */
export const sessionSummarySchema = z
  .object({
    id: z.string(),
    title: z.string().optional(),
    name: z.string().optional(),
    cwd: z.string(),
    created: z.iso.datetime(),
    modified: z.iso.datetime(),
    messageCount: z.number().int().nonnegative(),
    parentSession: z.string().optional(),
  })
  .openapi("SessionSummary");

/** Tokens and cost a session used. */
export const usageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  cost: z.number(),
});

/** One session: header, title, leaf, counts and usage. */
export const sessionDetailSchema = z
  .object({
    id: z.string(),
    cwd: z.string(),
    title: z.string().optional(),
    name: z.string().optional(),
    created: z.string(),
    parentSession: z.string().optional(),
    leafId: z.string().nullable(),
    entryCount: z.number().int().nonnegative(),
    messageCount: z.number().int().nonnegative(),
    usage: usageSchema,
    /** The run executing on the session, if any. */
    activeRunId: z.string().optional(),
  })
  .openapi("Session");

/** `POST /v1/sessions`. */
export const createSessionBodySchema = z.strictObject({
  cwd: z.string().max(4096).default(""),
  title: z.string().min(1).max(500).optional(),
});

/** `GET /v1/sessions` query. */
export const listSessionsQuerySchema = z.strictObject({
  cursor: z.string().max(1000).optional(),
  search: z.string().max(500).optional(),
  cwd: z.string().max(4096).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** A page of sessions. */
export const sessionPageSchema = z.object({
  sessions: z.array(sessionSummarySchema),
  nextCursor: z.string().optional(),
});

/** `PUT /v1/sessions/:id/title`. */
export const setTitleBodySchema = z.strictObject({ title: z.string().min(1).max(500) });

/** The title after a change. */
export const titleResponseSchema = z.object({ title: z.string().optional() });

/** `POST /v1/sessions/:id/title/generate`. */
export const generateTitleBodySchema = z.strictObject({
  /** The agent whose first model writes the title; default the first configured. */
  agent: z.string().min(1).max(64).optional(),
});

/** A generated title, or the title as it was and why the model gave none. */
export const generatedTitleSchema = z.object({
  title: z.string().optional(),
  error: z.string().optional(),
});

/** `POST /v1/sessions/:id/fork`. */
export const forkBodySchema = z.strictObject({
  /** The entry the fork ends at; default the leaf. */
  entryId: entryIdSchema.optional(),
});

/** One node of the tree: the entry, its label, its parent (the tree is sent flat). */
export const treeNodeSchema = z.object({
  entry: entrySchema,
  label: z.string().optional(),
  childCount: z.number().int().nonnegative(),
});

/** `GET /v1/sessions/:id/tree`. */
export const treeResponseSchema = z.object({
  leafId: z.string().nullable(),
  /** Every entry, parents before children. */
  nodes: z.array(treeNodeSchema),
});

/** `GET /v1/sessions/:id/entries` query. */
export const entriesQuerySchema = z.strictObject({
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, "a cursor from a previous page")
    .optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
});

/** A page of entries in stored order. */
export const entriesPageSchema = z.object({
  entries: z.array(entrySchema),
  nextCursor: z.string().optional(),
});

/** `?leafId=` of path and context: default the session's leaf. */
export const leafQuerySchema = z.strictObject({ leafId: entryIdSchema.optional() });

/** `GET /v1/sessions/:id/path`. */
export const pathResponseSchema = z.object({ entries: z.array(entrySchema) });

/** `GET /v1/sessions/:id/context`. */
export const contextResponseSchema = z.object({
  messages: z.array(z.looseObject({ role: z.string() })),
  thinkingLevel: z.string(),
  model: z.object({ provider: z.string(), modelId: z.string() }).nullable().optional(),
});

/** The `:id/:entryId` path of label routes. */
export const labelParamsSchema = z.object({
  id: z.string().openapi({ param: { name: "id", in: "path" } }),
  entryId: entryIdSchema.openapi({ param: { name: "entryId", in: "path" } }),
});

/** `PUT /v1/sessions/:id/entries/:entryId/label`. */
export const setLabelBodySchema = z.strictObject({ label: z.string().min(1).max(200) });

/** A label after a change. */
export const labelResponseSchema = z.object({ entryId: z.string(), label: z.string().optional() });

/** `POST /v1/sessions/:id/navigate`. */
export const navigateBodySchema = z.strictObject({
  /** The new leaf; null: before the first entry. */
  entryId: entryIdSchema.nullable(),
  /** Summarize the branch left (with the agent's model). */
  summarize: z.boolean().default(false),
  customInstructions: z.string().max(10_000).optional(),
  /** The agent whose model summarizes; default the first configured. */
  agent: z.string().min(1).max(64).optional(),
});

/** Where the leaf went. */
export const navigateResponseSchema = z.object({
  oldLeafId: z.string().nullable(),
  newLeafId: z.string().nullable(),
  summaryEntryId: z.string().optional(),
});

/** `POST /v1/sessions/:id/compact`. */
export const compactBodySchema = z.strictObject({
  instructions: z.string().max(10_000).optional(),
  agent: z.string().min(1).max(64).optional(),
});

/** How a compaction went. */
export const compactResponseSchema = z.object({
  status: z.string(),
  entryId: z.string().optional(),
  tokensBefore: z.number().optional(),
  message: z.string().optional(),
});

/** `GET /v1/sessions/:id/export`. */
export const exportQuerySchema = z.object({
  /** The agent whose extensions' renderers show custom messages; default the first configured. */
  agent: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ param: { name: "agent", in: "query" }, example: "helper" }),
});
