import { type RunEvent, runEventSchema } from "@arbor/orchestration";
import { z } from "zod";
import { type ExtensionRunEvent, extensionRunEventSchema } from "../extensions/extension-events.js";

/** The envelope the server's own events get in a run's stream: the run and the place in it. */
const serverEnvelopeSchema = z.object({
  runId: z.string(),
  seq: z.number().int().positive(),
});

/**
 * One event of a server run's stream (its SSE `data`, its log's rows): what the host's run
 * streams (`RunEvent`: the turn runner's events, an agent tree's `child_start`, `child_end`,
 * `handoff`, `orchestration_end`) and the events the server adds for extensions (UI
 * requests, notifications, command ends, tool updates), all in one `seq` order.
 */
export const serverRunEventSchema = z.union([
  runEventSchema,
  z.intersection(extensionRunEventSchema, serverEnvelopeSchema),
]);

/** One event of a server run's stream (see {@link serverRunEventSchema}). */
export type ServerRunEvent = RunEvent | (ExtensionRunEvent & z.infer<typeof serverEnvelopeSchema>);

/**
 * {@link serverRunEventSchema} as a JSON Schema (2020-12, what OpenAPI 3.1 takes), for the
 * OpenAPI document's SSE routes. Parts JSON Schema cannot say (a function, `undefined`)
 * are left open.
 */
export function serverRunEventJsonSchema(): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(serverRunEventSchema, {
    unrepresentable: "any",
    io: "output",
  }) as Record<string, unknown>;
  return schema;
}
