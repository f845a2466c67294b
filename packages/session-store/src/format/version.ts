/** The session file format version Arbor writes: pi's v3. */
export const CURRENT_SESSION_VERSION = 3;
