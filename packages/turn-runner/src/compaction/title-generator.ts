import type { Model } from "@arbor/providers";
import { serializeTranscript, type TitleGenerator } from "@arbor/session-store";
import { requestText } from "./model-text.js";
import { TITLE_SYSTEM_PROMPT, transcriptBlock } from "./prompts.js";

/** The most words a generated title keeps. */
export const MAX_TITLE_WORDS = 8;

/** Options of {@link createTitleGenerator}. */
export interface TitleGeneratorOptions {
  /** Characters of the conversation shown to the model. Default 4,000. */
  transcriptChars?: number;
  /** Output budget of the title. Default 64 tokens. */
  maxOutputTokens?: number;
}

/**
 * Cleans a model's title: its first non-empty line, without a `Title:` prefix, quotes,
 * Markdown emphasis or a trailing period, cut to {@link MAX_TITLE_WORDS} words.
 */
export function cleanTitle(raw: string): string {
  const line = raw.split(/\r?\n/u).find((l) => l.trim() !== "") ?? "";
  const words = line
    .replace(/^\s*(?:#+\s*)?(?:title|titre|titel|título|标题)\s*[:：]\s*/iu, "")
    .replace(/[*_`]+/gu, "")
    .replace(/^[\s"'“”‘’«»「」]+|[\s"'“”‘’«»「」.。!！]+$/gu, "")
    .split(/\s+/u)
    .filter((word) => word !== "");
  return words.slice(0, MAX_TITLE_WORDS).join(" ");
}

/**
 * Makes a {@link TitleGenerator} that asks `model` for a 3–8 word title in the
 * conversation's language, for `Session.regenerateTitle`. It rejects when the model fails
 * or answers nothing usable; `regenerateTitle` then keeps the title as it was.
 * @example
 * ```ts
 * await session.regenerateTitle(createTitleGenerator(model));
 * ```
 */
export function createTitleGenerator(
  model: Model,
  options: TitleGeneratorOptions = {},
): TitleGenerator {
  const maxChars = options.transcriptChars ?? 4_000;
  return async ({ firstUserMessage, messages, signal }) => {
    const transcript = serializeTranscript(messages, { toolResultMaxChars: 300 }).slice(
      0,
      maxChars,
    );
    const prompt = [
      transcriptBlock(transcript || `[User]: ${firstUserMessage}`),
      "Give this conversation a title of 3 to 8 words, in the language of the user's messages.",
    ].join("\n\n");
    const { text } = await requestText(model, {
      system: TITLE_SYSTEM_PROMPT,
      prompt,
      maxOutputTokens: options.maxOutputTokens ?? 64,
      ...(signal ? { signal } : {}),
    });
    const title = cleanTitle(text);
    if (!title) throw new Error("the model gave no usable title");
    return title;
  };
}
