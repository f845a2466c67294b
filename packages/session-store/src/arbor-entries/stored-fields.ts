import { z } from "zod";

/*
 * The field shapes Arbor's own custom entries are built from. A session file may come from
 * anywhere (a newer Arbor, a hand edit, a hostile upload), so every string has a bound: a
 * reader never hands a megabyte-long "agent name" to a page or a terminal.
 */

/** The most characters an identifier, name, path or vocabulary word may have. */
export const MAX_NAME_CHARS = 4_096;

/** The most characters a free text (a prompt, an error message, a command) may have. */
export const MAX_TEXT_CHARS = 512 * 1_024;

/** An identifier or a name: non-empty, bounded. */
export const nameField = z.string().min(1).max(MAX_NAME_CHARS);

/**
 * A word of a vocabulary Arbor writes (a role, an outcome, an action): kept as a string,
 * so a word a newer writer adds is read as written instead of making the entry unreadable.
 */
export const wordField = z.string().min(1).max(MAX_NAME_CHARS);

/** A free text, possibly empty, bounded. */
export const textField = z.string().max(MAX_TEXT_CHARS);

/** A free text that must not be empty, bounded. */
export const nonEmptyTextField = textField.min(1);

/** A count of tokens, turns or attempts. */
export const countField = z.number().int().nonnegative();

/** An amount (dollars, milliseconds): finite and not negative. */
export const amountField = z.number().finite().nonnegative();

/** The model that served or tried a request. */
export const targetRefField = z.looseObject({ provider: nameField, model: nameField });

/** Token counts of one call, as providers report them (`input` excludes cached tokens). */
export const tokenUsageField = z.looseObject({
  input: countField,
  output: countField,
  cacheRead: countField,
  cacheWrite: countField,
});

/** Usage in pi's stored shape: the token counts, their total and their priced cost. */
export const pricedUsageField = tokenUsageField.extend({
  totalTokens: countField,
  cost: z.looseObject({
    input: amountField,
    output: amountField,
    cacheRead: amountField,
    cacheWrite: amountField,
    total: amountField,
  }),
});

/** The most items a list (rule names, problem kinds) may have. */
export const MAX_LIST_ITEMS = 1_024;

/** A bounded list of `item`. */
export function listField<T extends z.ZodType>(item: T) {
  return z.array(item).max(MAX_LIST_ITEMS);
}
