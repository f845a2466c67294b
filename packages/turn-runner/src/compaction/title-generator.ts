import type { Model } from "@arbor/providers";
import { serializeTranscript, type TitleGenerator } from "@arbor/session-store";
import { requestText } from "./model-text.js";
import { TITLE_SYSTEM_PROMPT, transcriptBlock } from "./prompts.js";

/** The fewest words a generated title may have. */
export const MIN_TITLE_WORDS = 3;
/** The most words a generated title keeps. */
export const MAX_TITLE_WORDS = 8;

/** Options of {@link createTitleGenerator}. */
export interface TitleGeneratorOptions {
  /** Characters of the conversation shown to the model. Default 4,000. */
  transcriptChars?: number;
  /** Output budget of the title. Default 64 tokens. */
  maxOutputTokens?: number;
}

// Unicode word boundaries, with dictionaries for scripts written without spaces: "修复登录错误"
// is three words, where splitting on whitespace would see one.
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/** The words of `text` by Unicode word boundaries (punctuation and spaces are not words). */
export function titleWords(text: string): string[] {
  return [...wordSegmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);
}

/** `text` cut after its `max`-th word, or whole when it has no more. */
function cutAfterWords(text: string, max: number): string {
  let count = 0;
  for (const segment of wordSegmenter.segment(text)) {
    if (segment.isWordLike && ++count === max) {
      return text.slice(0, segment.index + segment.segment.length);
    }
  }
  return text;
}

/**
 * Cleans a model's title: its first non-empty line, without a `Title:` prefix, quotes,
 * Markdown emphasis or a trailing period, whitespace collapsed, cut to
 * {@link MAX_TITLE_WORDS} words (counted by Unicode word boundaries, so scripts written
 * without spaces are cut too).
 */
export function cleanTitle(raw: string): string {
  const line = raw.split(/\r?\n/u).find((l) => l.trim() !== "") ?? "";
  const edges = /^[\s"'“”‘’«»「」]+|[\s"'“”‘’«»「」.。!！,，:：;；-]+$/gu;
  const cleaned = line
    .replace(/^\s*(?:#+\s*)?(?:title|titre|titel|título|标题)\s*[:：]\s*/iu, "")
    .replace(/[*_`]+/gu, "")
    .replace(edges, "")
    .replace(/\s+/gu, " ");
  return cutAfterWords(cleaned, MAX_TITLE_WORDS).replace(edges, "");
}

/**
 * Makes a {@link TitleGenerator} that asks `model` for a 3–8 word title in the
 * conversation's language, for `Session.regenerateTitle`. A longer title is cut to 8 words;
 * a shorter one is asked for once more with the word count as feedback. It rejects when the
 * model fails, answers nothing usable or stays under 3 words; `regenerateTitle` then keeps
 * the title as it was.
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
    const ask = async (feedback?: string): Promise<string> => {
      const prompt = [
        transcriptBlock(transcript || `[User]: ${firstUserMessage}`),
        `Give this conversation a title of ${MIN_TITLE_WORDS} to ${MAX_TITLE_WORDS} words, in the language of the user's messages.`,
        ...(feedback ? [feedback] : []),
      ].join("\n\n");
      const { text } = await requestText(model, {
        system: TITLE_SYSTEM_PROMPT,
        prompt,
        maxOutputTokens: options.maxOutputTokens ?? 64,
        ...(signal ? { signal } : {}),
      });
      return cleanTitle(text);
    };
    let title = await ask();
    let count = titleWords(title).length;
    // A longer title was cut above; a shorter one gets one more request naming the problem.
    if (count < MIN_TITLE_WORDS) {
      title = await ask(
        `Your last title, "${title}", has ${count} word(s); give ${MIN_TITLE_WORDS} to ${MAX_TITLE_WORDS}.`,
      );
      count = titleWords(title).length;
    }
    if (count < MIN_TITLE_WORDS) {
      throw new Error(
        title
          ? `the model's title "${title}" has ${count} word(s), fewer than ${MIN_TITLE_WORDS}`
          : "the model gave no usable title",
      );
    }
    return title;
  };
}
