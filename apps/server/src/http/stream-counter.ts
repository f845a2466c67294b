/**
 * Open SSE streams per key in this process (live connections only), and how to end them:
 * a key revoked through this process ends its streams at once.
 */
export class StreamCounter {
  private readonly open = new Map<string, number>();
  private readonly enders = new Map<string, Set<() => void>>();
  constructor(private readonly limit: number) {}

  /** Takes a slot for a key; false when the key already holds `limit` streams. */
  acquire(keyId: string): boolean {
    const count = this.open.get(keyId) ?? 0;
    if (count >= this.limit) return false;
    this.open.set(keyId, count + 1);
    return true;
  }

  /** Gives a slot back. */
  release(keyId: string): void {
    const count = (this.open.get(keyId) ?? 1) - 1;
    if (count <= 0) this.open.delete(keyId);
    else this.open.set(keyId, count);
  }

  /** Streams open for a key. */
  count(keyId: string): number {
    return this.open.get(keyId) ?? 0;
  }

  /**
   * Registers how to end one open stream of a key (at most `limit` per key, as slots are).
   * @returns a function that forgets it, called when the stream ends
   */
  track(keyId: string, end: () => void): () => void {
    let set = this.enders.get(keyId);
    if (!set) {
      set = new Set();
      this.enders.set(keyId, set);
    }
    set.add(end);
    return () => {
      set.delete(end);
      if (set.size === 0 && this.enders.get(keyId) === set) this.enders.delete(keyId);
    };
  }

  /** Ends every open stream of a key (it was revoked). */
  endKey(keyId: string): void {
    for (const end of [...(this.enders.get(keyId) ?? [])]) end();
  }
}
