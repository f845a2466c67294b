import { collectStream, type Model, type Usage } from "@arbor/providers";
import { SummaryError } from "./summary-error.js";

/** One single-message request for text, as summaries and titles are made. */
export interface TextRequest {
  system: string;
  prompt: string;
  maxOutputTokens?: number;
  signal?: AbortSignal;
}

/** The text a model answered, and what it cost. */
export interface TextAnswer {
  text: string;
  usage: Usage | undefined;
}

/**
 * Asks a model for text with one user message and no tools.
 * @throws SummaryError when the model reports an error, is aborted or answers nothing
 */
export async function requestText(model: Model, request: TextRequest): Promise<TextAnswer> {
  const collected = await collectStream(
    model.stream({
      system: request.system,
      messages: [{ role: "user", content: request.prompt }],
      ...(request.maxOutputTokens !== undefined
        ? { maxOutputTokens: request.maxOutputTokens }
        : {}),
      ...(request.signal ? { signal: request.signal } : {}),
    }),
  );
  if (collected.error) {
    const aborted = collected.error.kind === "aborted" || request.signal?.aborted === true;
    throw new SummaryError(
      aborted ? "aborted" : "model_error",
      `the model failed to summarize: ${collected.error.message}`,
      collected.error.kind,
    );
  }
  const text = collected.text.trim();
  if (!text) throw new SummaryError("empty_summary", "the model answered with no text");
  return { text, usage: collected.usage };
}
