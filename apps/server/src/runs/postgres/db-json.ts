import { escapeText, mapStrings } from "@arbor/session-store-postgres";

/** A query parameter the driver sends as it is (node-postgres calls `toPostgres`). */
export interface DbJson {
  toPostgres(): string;
}

/**
 * A value as JSON PostgreSQL keeps exactly (`jsonb` refuses `\u0000` and lone surrogates):
 * its strings escaped as the session store escapes text, sent as it is (the lossless pool
 * escapes only plain strings), and restored by that pool on read.
 */
export function dbJson(value: unknown): DbJson {
  const text = JSON.stringify(mapStrings(value, escapeText));
  return { toPostgres: () => text };
}
