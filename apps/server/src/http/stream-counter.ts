/** Open SSE streams per key in this process (live connections only). */
export class StreamCounter {
  private readonly open = new Map<string, number>();
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
}
