/** The in-process listeners of runs' changes, shared by the log implementations. */
export class RunWatchers {
  private readonly listeners = new Map<string, Set<() => void>>();

  /** Adds a listener; returns its remover. */
  watch(runId: string, listener: () => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  /** Calls every listener of a run. */
  notify(runId: string): void {
    const set = this.listeners.get(runId);
    if (!set) return;
    for (const listener of [...set]) listener();
  }
}
