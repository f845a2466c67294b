import { z } from "zod";
import type { SessionEntry, SessionHeader } from "../format/entries.js";

/** The tools whose sessions can be imported. */
export const importSourceSchema = z.enum(["claude-code", "codex", "opencode"]);
/** A tool whose sessions can be imported. */
export type ImportSource = z.infer<typeof importSourceSchema>;

/**
 * Where an imported session came from, recorded in its header as `importedFrom`: the tool,
 * the tool's own session id, the file (or folder) read and the tool's version when known.
 */
export const importProvenanceSchema = z.looseObject({
  tool: importSourceSchema,
  sessionId: z.string(),
  path: z.string(),
  version: z.string().optional(),
});
/** What {@link importProvenanceSchema} accepts. */
export type ImportProvenance = z.infer<typeof importProvenanceSchema>;

/**
 * Where an imported entry came from, recorded on the entry as `importedFrom`: the source
 * line (1-based; opencode: the file) and the source's own id for it. An entry made of
 * several source lines (Claude Code's split messages) lists the others in `merged`.
 */
export const entryProvenanceSchema = z.looseObject({
  line: z.number().int().positive().optional(),
  file: z.string().optional(),
  id: z.string().optional(),
  merged: z
    .array(z.looseObject({ line: z.number().int().optional(), id: z.string().optional() }))
    .optional(),
});
/** What {@link entryProvenanceSchema} accepts. */
export type EntryProvenance = z.infer<typeof entryProvenanceSchema>;

/** The `customType` of a custom entry holding a source line no reader understood. */
export const RAW_LINE_CUSTOM_TYPE = "import.raw_line";

/** One source line kept as it was (or skipped), and why. */
export interface ImportLineIssue {
  /** The 1-based line (opencode: 0), or the file for folder layouts. */
  line: number;
  file?: string;
  reason: string;
}

/** What a reader did with its source, line by line. */
export interface ImportReport {
  /** Source lines (or files) read. */
  lines: number;
  /** Entries produced. */
  entries: number;
  /** Lines kept whole as `import.raw_line` custom entries (unknown types, broken JSON). */
  raw: number;
  /** Lines folded into an earlier entry (split messages, compaction summaries). */
  merged: number;
  /** Lines left out on purpose because another line already holds their content. */
  duplicates: number;
  /** Empty lines. */
  blank: number;
  /** Every raw line, with its reason. */
  issues: ImportLineIssue[];
}

/** One imported session: its header, its entries in file order, and what the reader did. */
export interface ImportedLog {
  header: SessionHeader & { importedFrom: ImportProvenance };
  entries: SessionEntry[];
  report: ImportReport;
  /**
   * How many entries at the end the source may still change if it is still being written:
   * an answer whose later parts may follow on more lines (Claude Code, Codex), an answer
   * opencode has not completed, a compaction waiting for its summary, a torn last line.
   * Following a live log holds them back until they are complete, so that storing what
   * the source gained stays an append. Zero or absent when nothing is open.
   */
  openEntries?: number;
}

/** An empty report. */
export function emptyReport(): ImportReport {
  return { lines: 0, entries: 0, raw: 0, merged: 0, duplicates: 0, blank: 0, issues: [] };
}
