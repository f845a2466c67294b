import { z } from "zod";

/*
 * opencode's JSON storage (`~/.local/share/opencode/storage/`): `session/<project>/<id>.json`
 * (session info), `message/<session>/<id>.json` (message info) and
 * `part/<message>/<id>.json` (the message's parts). Ids sort by creation time.
 */

/** A session's info file. */
export const opencodeSessionSchema = z.looseObject({
  id: z.string().min(1),
  directory: z.string().optional(),
  title: z.string().optional(),
  parentID: z.string().optional(),
  version: z.string().optional(),
  time: z.looseObject({ created: z.number().optional() }).optional(),
});
/** What {@link opencodeSessionSchema} accepts. */
export type OpencodeSession = z.infer<typeof opencodeSessionSchema>;

/** A message's info file: role, model and time; its content lives in parts. */
export const opencodeMessageSchema = z.looseObject({
  id: z.string().min(1),
  sessionID: z.string().optional(),
  role: z.string(),
  /** `completed` is set once opencode has finished an assistant message. */
  time: z
    .looseObject({ created: z.number().optional(), completed: z.number().optional() })
    .optional(),
  modelID: z.string().optional(),
  providerID: z.string().optional(),
  model: z
    .looseObject({ modelID: z.string().optional(), providerID: z.string().optional() })
    .optional(),
  summary: z.unknown().optional(),
});
/** What {@link opencodeMessageSchema} accepts. */
export type OpencodeMessage = z.infer<typeof opencodeMessageSchema>;

/** A part of a message: text, reasoning, a tool call with its state, a step boundary, … */
export const opencodePartSchema = z.looseObject({
  id: z.string().min(1),
  type: z.string(),
  text: z.string().optional(),
  tool: z.string().optional(),
  callID: z.string().optional(),
  state: z
    .looseObject({
      status: z.string().optional(),
      input: z.unknown().optional(),
      output: z.unknown().optional(),
      error: z.unknown().optional(),
    })
    .optional(),
  tokens: z.unknown().optional(),
  mime: z.string().optional(),
  url: z.string().optional(),
  filename: z.string().optional(),
});
/** What {@link opencodePartSchema} accepts. */
export type OpencodePart = z.infer<typeof opencodePartSchema>;
