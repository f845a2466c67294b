import type { Model, Usage } from "@arbor/providers";
import {
  type AgentMessage,
  estimateTextTokens,
  type FileOperations,
  serializeTranscript,
} from "@arbor/session-store";
import { requestText } from "./model-text.js";
import { SUMMARIZER_SYSTEM_PROMPT, transcriptBlock } from "./prompts.js";

/** Tokens left for the instructions around a transcript in a summary request. */
const PROMPT_OVERHEAD_TOKENS = 2_000;

/** What one summary request sends. */
export interface SummaryRequest {
  messages: readonly AgentMessage[];
  /** The instruction that follows the transcript. */
  instruction: string;
  previousSummary?: string;
  customInstructions?: string;
  maxOutputTokens: number;
  toolResultMaxChars?: number;
  signal?: AbortSignal;
}

/**
 * Cuts a transcript that would not fit in the summarizing model's window, dropping its
 * oldest part (the newest part matters most for carrying on).
 */
export function fitTranscript(transcript: string, maxTokens: number): string {
  if (estimateTextTokens(transcript) <= maxTokens) return transcript;
  const keepChars = Math.max(0, maxTokens * 4 - 100);
  return `[… the earliest part of the transcript was left out to fit]\n${transcript.slice(-keepChars)}`;
}

/** A summary and the tokens it cost (zero when the model reported none). */
export interface SummaryAnswer {
  text: string;
  usage: Usage;
}

/** Usage with every counter at zero. */
export const NO_USAGE: Readonly<Usage> = Object.freeze({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
});

/** Adds two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/**
 * Asks `model` for a summary of `messages`: the transcript (tool results cut), the earlier
 * summary to update if any, the instruction, and the user's own instructions last.
 * @throws SummaryError when the model fails or answers nothing
 */
export async function requestSummary(
  model: Model,
  request: SummaryRequest,
): Promise<SummaryAnswer> {
  const budget = model.info.contextWindow - request.maxOutputTokens - PROMPT_OVERHEAD_TOKENS;
  const transcript = fitTranscript(
    serializeTranscript(request.messages, {
      ...(request.toolResultMaxChars !== undefined
        ? { toolResultMaxChars: request.toolResultMaxChars }
        : {}),
    }),
    Math.max(1_000, budget - estimateTextTokens(request.previousSummary ?? "")),
  );
  const parts = [transcriptBlock(transcript)];
  if (request.previousSummary !== undefined) {
    parts.push(`<previous-summary>\n${request.previousSummary}\n</previous-summary>`);
  }
  parts.push(request.instruction);
  if (request.customInstructions?.trim()) {
    parts.push(
      `The user asks you to pay particular attention to this:\n${request.customInstructions.trim()}`,
    );
  }
  const { text, usage } = await requestText(model, {
    system: SUMMARIZER_SYSTEM_PROMPT,
    prompt: parts.join("\n\n"),
    maxOutputTokens: request.maxOutputTokens,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  return { text, usage: usage ?? { ...NO_USAGE } };
}

/** Appends the files a summary's conversation read and modified, so the model sees them. */
export function withFileLists(summary: string, files: FileOperations): string {
  const sections: string[] = [];
  if (files.readFiles.length > 0) {
    sections.push(`<read-files>\n${files.readFiles.join("\n")}\n</read-files>`);
  }
  if (files.modifiedFiles.length > 0) {
    sections.push(`<modified-files>\n${files.modifiedFiles.join("\n")}\n</modified-files>`);
  }
  return sections.length === 0 ? summary : `${summary}\n\n${sections.join("\n")}`;
}

/** Removes the file lists {@link withFileLists} appended, so a summary can be updated. */
export function withoutFileLists(summary: string): string {
  return summary
    .replace(/\n*<read-files>\n[\s\S]*?\n<\/read-files>/gu, "")
    .replace(/\n*<modified-files>\n[\s\S]*?\n<\/modified-files>/gu, "")
    .trimEnd();
}
