// Timing and formatting helpers shared by the benchmark cases.

/** Collects garbage when node runs with --expose-gc, so one run's garbage is not billed to the next. */
export function collectGarbage() {
  globalThis.gc?.();
  globalThis.gc?.();
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds taken by `fn` (awaited). */
export async function timeOnce(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/**
 * Times several sides of a comparison in alternation (A, B, A, B, …) after `warmup` untimed
 * rounds, so a noisy neighbour hurts each side alike.
 * @param {Record<string, () => unknown>} sides
 * @returns {Record<string, number[]>} milliseconds per run, per side
 */
export async function timeAlternating(sides, { runs, warmup = 1 }) {
  const times = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  for (let round = 0; round < warmup + runs; round++) {
    for (const [name, fn] of Object.entries(sides)) {
      collectGarbage();
      const ms = await timeOnce(fn);
      if (round >= warmup) times[name].push(ms);
    }
  }
  return times;
}

export function formatMs(ms) {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function formatBytes(bytes) {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function formatRatio(value) {
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(2)}×`;
}

/** A markdown table; cells are strings. */
export function markdownTable(head, rows) {
  const widths = head.map((cell, i) =>
    Math.max(cell.length, ...rows.map((row) => String(row[i]).length)),
  );
  const line = (cells) =>
    `| ${cells.map((cell, i) => String(cell).padEnd(widths[i])).join(" | ")} |`;
  return [
    line(head),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}
