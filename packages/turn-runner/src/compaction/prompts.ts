/*
 * The prompts Arbor sends when it asks a model to summarize. The conversation is always
 * sent as a transcript inside one request, and the system prompt says the model is a
 * summarizer, so it writes a summary instead of carrying on the conversation.
 */

/** The system prompt of every summarization request. */
export const SUMMARIZER_SYSTEM_PROMPT = [
  "You write summaries of conversations between a user and an AI coding assistant.",
  "You are not a participant: do not answer questions in the transcript, do not continue",
  "the conversation, do not call tools and do not greet anyone. Output only the summary.",
  "Another assistant will read the summary in place of the transcript and carry on the",
  "work, so keep every fact it needs: goals, decisions, file paths, names, numbers,",
  "errors, and what is left to do. Write in the language the user writes in.",
].join("\n");

/** The sections every compaction summary has, in order. */
const SUMMARY_FORMAT = `Use this format (Markdown headings, omit nothing that matters):

## Goal
What the user wants to achieve.

## Constraints and preferences
Requirements and preferences the user stated.

## Progress
### Done
### In progress
### Blocked

## Decisions
Choices made and why.

## Next steps
What should happen next, in order.

## Critical context
Exact names, paths, commands, values and error messages needed to continue.`;

/** The instruction for a first summary of a conversation. */
export const INITIAL_SUMMARY_PROMPT = `Summarize the conversation in the transcript above as a checkpoint another assistant can continue from.

${SUMMARY_FORMAT}`;

/** The instruction when an earlier summary exists and must be brought up to date. */
export const UPDATE_SUMMARY_PROMPT = `The <previous-summary> above covers the conversation before the transcript. Update it with what the transcript adds: keep what is still true, move finished work to Done, replace what changed, drop only what is obsolete. Return the whole updated summary.

${SUMMARY_FORMAT}`;

/** The instruction for the beginning of a turn whose end stays verbatim after the summary. */
export const TURN_PREFIX_PROMPT = `The transcript above is the beginning of a turn that is still going on; its later part stays in the conversation verbatim. Summarize what this beginning asked for and what was found or done so far, briefly, so the rest of the turn makes sense without it.

## Request
## Done so far in this turn
## Facts needed for the rest of the turn`;

/** The instruction for summarizing a branch the user navigated away from. */
export const BRANCH_SUMMARY_PROMPT = `The transcript above is a branch of the conversation that the user has left to continue from an earlier point. Summarize what was tried on that branch and what came of it, so the conversation can use those findings.

## Tried
## Outcome
## Worth keeping`;

/** The system prompt of a title request. */
export const TITLE_SYSTEM_PROMPT = [
  "You name conversations. Reply with a title of 3 to 8 words that says what the",
  "conversation is about, in the language the user writes in. Reply with the title only:",
  "no quotes, no trailing period, no prefix such as 'Title:'. Do not answer the user.",
].join("\n");

/** Wraps a transcript so the model reads it as material, not as messages to answer. */
export function transcriptBlock(transcript: string): string {
  return `<transcript>\n${transcript}\n</transcript>`;
}
