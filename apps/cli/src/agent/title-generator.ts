import { collectStream, type Model } from "@arbor/providers";
import type { TitleGenerator } from "@arbor/session-store";

const TITLE_INSTRUCTIONS =
  "You name conversations. Answer with a title of at most six words for the conversation " +
  "that starts with the user's message below. No quotes, no punctuation at the end.";

/** A title generator that asks `model` for a short title; a failed call rejects. */
export function modelTitleGenerator(model: Model): TitleGenerator {
  return async ({ firstUserMessage, signal }) => {
    const collected = await collectStream(
      model.stream({
        system: TITLE_INSTRUCTIONS,
        messages: [{ role: "user", content: firstUserMessage }],
        maxOutputTokens: 32,
        ...(signal ? { signal } : {}),
      }),
    );
    if (collected.error) throw new Error(collected.error.message);
    return collected.text;
  };
}
