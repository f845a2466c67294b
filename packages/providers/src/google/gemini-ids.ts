/** The start of the ids Arbor gives function calls that came without one (never sent back). */
export const GENERATED_CALL_ID = "gcall_";
