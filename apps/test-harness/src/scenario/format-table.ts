import type { ScenarioResult } from "./run-scenario.js";

/** Renders scenario results as a plain-text table with a summary line and failure details. */
export function formatResultsTable(results: readonly ScenarioResult[]): string {
  const rows = results.map((result) => [
    result.passed ? "PASS" : "FAIL",
    result.name,
    String(result.calls),
    `${result.durationMs.toFixed(0)} ms`,
    result.path ?? "",
  ]);
  const header = ["RESULT", "SCENARIO", "CALLS", "TIME", "FILE"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const out = [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)];
  const failed = results.filter((result) => !result.passed);
  out.push(
    "",
    `${results.length - failed.length} passed, ${failed.length} failed, ${results.length} total`,
  );
  for (const result of failed) {
    out.push("", `FAIL ${result.name}`);
    for (const failure of result.failures) out.push(`  - ${failure}`);
  }
  return `${out.join("\n")}\n`;
}
