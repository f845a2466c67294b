/**
 * How an OpenAI Responses reasoning item travels on a thinking part: its `signature` is
 * this JSON (`{"type":"reasoning","id":…,"encrypted_content":…}`), so the item goes back to
 * the Responses API unchanged and other adapters can tell it is not theirs to send.
 */
export interface ResponsesReasoningRef {
  /** The item id, `rs_…`. */
  id: string;
  /** The encrypted reasoning (`include: ["reasoning.encrypted_content"]`), when asked for. */
  encryptedContent?: string;
}

const PREFIX = '{"type":"reasoning",';

/** The signature a thinking part carries for a Responses reasoning item. */
export function encodeResponsesReasoning(ref: ResponsesReasoningRef): string {
  return JSON.stringify({
    type: "reasoning",
    id: ref.id,
    ...(ref.encryptedContent === undefined ? {} : { encrypted_content: ref.encryptedContent }),
  });
}

/** The reasoning item a thinking signature names, or `undefined` when it is no Responses item. */
export function decodeResponsesReasoning(
  signature: string | undefined,
): ResponsesReasoningRef | undefined {
  if (signature === undefined || !signature.startsWith(PREFIX)) return undefined;
  try {
    const value = JSON.parse(signature) as { id?: unknown; encrypted_content?: unknown };
    if (typeof value.id !== "string" || value.id === "") return undefined;
    return {
      id: value.id,
      ...(typeof value.encrypted_content === "string"
        ? { encryptedContent: value.encrypted_content }
        : {}),
    };
  } catch {
    return undefined;
  }
}
