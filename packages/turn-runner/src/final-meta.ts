import type { RegisteredFinalMeta } from "@arbor/extensions-api";
import type { ToolDefinition } from "@arbor/providers";
import type { Session } from "@arbor/session-store";

/** The name of the built-in tool through which the model delivers required metadata blocks. */
export const FINAL_META_TOOL_NAME = "final_meta";

/**
 * A tool call as the model asked for it (the shape of the turn's `RequestedToolCall`,
 * restated so the run's hooks can name this file without an import cycle).
 */
export interface RequestedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** At most this many validation issues are told per block. */
const MAX_ISSUES_PER_BLOCK = 2;

/** What one `final_meta` call brought: the blocks kept and what was wrong with the others. */
export interface MetaReading {
  /** Names of the blocks that validated (and are now kept). */
  accepted: string[];
  /** What was wrong, one line per problem (`sources.urls: Too small…`). */
  issues: string[];
}

/** A report that validated, held while the model is asked for the metadata only. */
export interface LockedReport {
  value: unknown;
  repaired: boolean;
  /** The stored answer that carried it. */
  entryId: string;
}

/**
 * The metadata blocks extensions require beside the final report (`requireFinalMeta`), for
 * one run: the `final_meta` tool sent to the model, the blocks delivered so far (a valid
 * block is kept for the rest of the run, a later valid one replaces it) and the report
 * locked while blocks are missing.
 */
export class FinalMetaRun {
  /** The `final_meta` tool as sent to the model: one optional property per block. */
  readonly definition: ToolDefinition;
  private readonly blocks = new Map<string, unknown>();
  private lockedReport: LockedReport | undefined;

  constructor(private readonly requirements: readonly RegisteredFinalMeta[]) {
    const names = requirements.map((block) => block.name).join(", ");
    this.definition = {
      name: FINAL_META_TOOL_NAME,
      description:
        `Delivers the metadata blocks this task requires beside its final answer (${names}). ` +
        "Call it in the same answer as your final answer (or final report), with every block.",
      parameters: {
        type: "object",
        properties: Object.fromEntries(
          requirements.map((block) => [
            block.name,
            { ...block.jsonSchema, description: block.description },
          ]),
        ),
        additionalProperties: false,
      },
    };
  }

  /** The report held while metadata is missing, if one was locked in this run. */
  get locked(): LockedReport | undefined {
    return this.lockedReport;
  }

  /** Holds a valid report: later answers are asked for the metadata only. */
  lock(report: LockedReport): void {
    this.lockedReport ??= report;
  }

  /**
   * Validates the blocks of `final_meta` calls (in call order) and keeps the valid ones.
   * Unknown block names and arguments that are not an object are issues too.
   */
  absorb(calls: readonly RequestedToolCall[]): MetaReading {
    const accepted: string[] = [];
    const issues: string[] = [];
    for (const call of calls) {
      for (const [name, value] of Object.entries(call.arguments)) {
        const block = this.requirements.find((candidate) => candidate.name === name);
        if (!block) {
          issues.push(`${name}: not a required metadata block`);
          continue;
        }
        const parsed = block.schema.safeParse(value);
        if (parsed.success) {
          this.blocks.set(name, parsed.data);
          if (!accepted.includes(name)) accepted.push(name);
          continue;
        }
        for (const issue of parsed.error.issues.slice(0, MAX_ISSUES_PER_BLOCK)) {
          const path = [name, ...issue.path.map(String)].join(".");
          issues.push(`${path}: ${issue.message}`);
        }
      }
    }
    return { accepted, issues };
  }

  /** Names of the required blocks not delivered valid yet, in registration order. */
  missing(): string[] {
    return this.requirements
      .filter((block) => !this.blocks.has(block.name))
      .map((block) => block.name);
  }

  /** Every kept block by name (complete once {@link missing} is empty). */
  values(): Record<string, unknown> {
    return Object.fromEntries(this.blocks);
  }

  /** What the model is told for a `final_meta` call: what was kept, what is still missing. */
  acknowledgement(reading: MetaReading): { text: string; isError: boolean } {
    const missing = this.missing();
    const parts = [
      reading.accepted.length > 0
        ? `Metadata received: ${reading.accepted.join(", ")}.`
        : "No metadata block was accepted.",
    ];
    if (reading.issues.length > 0) parts.push(`Rejected: ${reading.issues.join("; ")}.`);
    if (missing.length > 0) parts.push(`Still missing: ${missing.join(", ")}.`);
    return { text: parts.join(" "), isError: reading.issues.length > 0 };
  }
}

/** A valid report kept on the path while the model is asked for its missing metadata. */
export interface KeptReport {
  /** The run's metadata state (it holds the locked report). */
  meta: FinalMetaRun;
  /** The final-report call the report came through, if it came through one. */
  reportCallId?: string;
  /** The `final_meta` calls of the answer, with what each brought. */
  metaCalls: Array<{ call: RequestedToolCall; reading: MetaReading }>;
  /** Other calls of the answer: never run. */
  otherCalls: RequestedToolCall[];
  /** When the results are stored. */
  now: number;
}

/**
 * Stores the results of every call in an answer whose report is kept while metadata is
 * missing: the report call is acknowledged, `final_meta` calls get what they brought and
 * other calls are not run. The answer stays on the path, so the model sees its report.
 */
export async function persistKeptReport(
  session: Session,
  kept: KeptReport,
  reportTool: string | undefined,
): Promise<void> {
  const missing = kept.meta.missing().join(", ");
  if (kept.reportCallId !== undefined && reportTool !== undefined) {
    await session.appendMessage({
      role: "toolResult",
      toolCallId: kept.reportCallId,
      toolName: reportTool,
      content: [
        { type: "text", text: `Final report received and kept. Metadata missing: ${missing}.` },
      ],
      isError: false,
      timestamp: kept.now,
    });
  }
  for (const { call, reading } of kept.metaCalls) {
    const { text, isError } = kept.meta.acknowledgement(reading);
    await session.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text }],
      isError,
      timestamp: kept.now,
    });
  }
  for (const call of kept.otherCalls) {
    await session.appendMessage({
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "Not run: the final report ended the task." }],
      isError: true,
      timestamp: kept.now,
    });
  }
}
