import { randomUUID } from "node:crypto";

/** Anything that can tell whether an id is taken: a set, a map, a session tree. */
export interface IdSet {
  has(id: string): boolean;
}

/** Generates an entry id not yet in `taken`: eight hex digits, as pi writes them. */
export function generateEntryId(taken: IdSet): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomUUID().slice(0, 8);
    if (!taken.has(id)) return id;
  }
  return randomUUID();
}

/** Generates a session id: a time-ordered UUID (v7), so file names sort by creation. */
export function generateSessionId(now: number): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let ms = BigInt(now);
  for (let i = 5; i >= 0; i--) {
    bytes[i] = Number(ms & 0xffn);
    ms >>= 8n;
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
