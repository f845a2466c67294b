import type { AgentMessage, ContentBlock, SessionEntry } from "../format/entries.js";
import { assistantBlock, messageBlocks, toolOutput } from "./codex-items.js";
import {
  CODEX_ASSISTANT_ITEMS,
  CODEX_DUPLICATE_EVENTS,
  type CodexResponseItem,
  codexCompactedSchema,
  codexResponseItemSchema,
  codexTurnContextSchema,
} from "./codex-lines.js";
import type { EntryProvenance } from "./imported-log.js";
import { type EntryFields, ImportedLogBuilder } from "./log-builder.js";

type OpenEntry = SessionEntry & { message: AgentMessage; importedFrom: EntryProvenance };

/**
 * Turns Codex rollout lines into Arbor entries, one path: content comes from
 * `response_item` lines only (the `event_msg` lines that repeat it are counted and left
 * out), consecutive assistant items (reasoning, tool calls, text) form one assistant
 * message, tool outputs become tool results paired by `call_id`, `turn_context` changes
 * of model or effort become `model_change` / `thinking_level_change` entries, and
 * `compacted` becomes a compaction followed by its replacement history.
 */
export class CodexConverter {
  readonly builder = new ImportedLogBuilder();
  private readonly toolNames = new Map<string, string>();
  private open: OpenEntry | undefined;
  private lastAssistant: OpenEntry | undefined;
  private model: string | undefined;
  private effort: string | undefined;
  private lastTime = new Date(0).toISOString();
  /** The text of the line being read, kept whole by {@link CodexConverter.raw}. */
  currentText = "";

  /** Adds a `turn_context` line. */
  turnContext(payload: unknown, line: number, timestamp: string): void {
    const parsed = codexTurnContextSchema.safeParse(payload);
    if (!parsed.success) {
      this.raw(line, "turn_context without settings", timestamp);
      return;
    }
    const { model, effort } = parsed.data;
    let changed = false;
    if (model && model !== this.model) {
      this.model = model;
      this.add({ type: "model_change", provider: "openai", modelId: model }, line, timestamp);
      changed = true;
    }
    if (effort && effort !== this.effort) {
      this.effort = effort;
      this.add(
        { type: "thinking_level_change", thinkingLevel: effort },
        line,
        timestamp,
        "-effort",
      );
      changed = true;
    }
    if (!changed) this.builder.report.merged++;
  }

  /** Adds a `response_item` line (or the replacement history of a compaction). */
  responseItem(payload: unknown, line: number, timestamp: string, idSuffix = ""): void {
    const parsed = codexResponseItemSchema.safeParse(payload);
    if (!parsed.success) {
      this.raw(line, "response_item without a type", timestamp);
      return;
    }
    const item = parsed.data;
    const ms = Date.parse(timestamp);
    const from = provenance(line, item);
    if (item.type === "message" && item.role === "assistant") {
      this.assistant(messageBlocks(item), from, timestamp, idSuffix);
    } else if (CODEX_ASSISTANT_ITEMS.has(item.type)) {
      if (item.call_id && item.name) this.toolNames.set(item.call_id, item.name);
      if (item.type === "local_shell_call" && item.call_id)
        this.toolNames.set(item.call_id, "local_shell");
      this.assistant([assistantBlock(item)], from, timestamp, idSuffix);
    } else if (item.type === "message" && item.role === "user") {
      this.builder.close();
      this.add(
        { type: "message", message: { role: "user", content: messageBlocks(item), timestamp: ms } },
        line,
        timestamp,
        idSuffix,
        from,
      );
    } else if (item.type === "message") {
      const role = item.role ?? "system";
      this.add(
        {
          type: "custom_message",
          customType: `codex.${role}`,
          content: messageBlocks(item),
          display: false,
        },
        line,
        timestamp,
        idSuffix,
        from,
      );
    } else if (item.type.endsWith("_call_output")) {
      const callId = item.call_id ?? "";
      const { text, isError } = toolOutput(item.output);
      this.add(
        {
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: callId,
            toolName: this.toolNames.get(callId) ?? "unknown",
            content: [{ type: "text", text }],
            isError,
            timestamp: ms,
          },
        },
        line,
        timestamp,
        idSuffix,
        from,
      );
    } else if (item.type === "compaction" || item.type === "compaction_summary") {
      // A server-side compaction's summary: opaque (encrypted) to anyone but the model.
      this.add(
        { type: "custom", customType: "codex.compaction_item", data: item },
        line,
        timestamp,
        idSuffix,
        from,
      );
    } else {
      this.raw(line, `unknown response_item type "${item.type}"`, timestamp);
    }
  }

  /** Adds a `compacted` line: a compaction, then the history that replaces the old one. */
  compacted(payload: unknown, line: number, timestamp: string): void {
    const parsed = codexCompactedSchema.safeParse(payload);
    if (!parsed.success) {
      this.raw(line, "compacted without a summary", timestamp);
      return;
    }
    const history = parsed.data.replacement_history ?? [];
    this.add(
      {
        type: "compaction",
        summary:
          parsed.data.message || "(earlier conversation compacted; the kept history follows)",
        tokensBefore: 0,
        details: { source: "codex", replacementHistoryItems: history.length },
      },
      line,
      timestamp,
    );
    history.forEach((item, i) => {
      this.responseItem(item, line, timestamp, `-h${i + 1}`);
    });
  }

  /** Adds an `event_msg` line: duplicates are counted, token counts go to the last answer. */
  event(payload: unknown, line: number, timestamp: string): void {
    const type = (payload as { type?: unknown } | undefined)?.type;
    if (typeof type === "string" && CODEX_DUPLICATE_EVENTS.has(type)) {
      this.builder.report.duplicates++;
      return;
    }
    if (type === "token_count") {
      const info = (payload as { info?: { last_token_usage?: Record<string, number> } | null })
        .info;
      const usage = info?.last_token_usage;
      if (usage && this.lastAssistant) {
        const input = usage.input_tokens ?? 0;
        const cacheRead = usage.cached_input_tokens ?? 0;
        const output = usage.output_tokens ?? 0;
        this.lastAssistant.message.usage = {
          input: input - cacheRead,
          output,
          cacheRead,
          cacheWrite: 0,
          totalTokens: usage.total_tokens ?? input + output,
        };
        this.builder.report.merged++;
        return;
      }
    }
    this.add({ type: "custom", customType: "codex.event_msg", data: payload }, line, timestamp);
  }

  /** Keeps a line of a known type whose payload is kept as it is (a later `session_meta`). */
  keep(customType: string, payload: unknown, line: number, timestamp: string): void {
    this.add({ type: "custom", customType, data: payload }, line, timestamp);
  }

  /** Keeps a line no reader understands as a raw custom entry. */
  raw(line: number, reason: string, timestamp = this.lastTime, torn = false): void {
    this.open = undefined;
    const entry = this.builder.raw(line, this.currentText, reason, timestamp, torn);
    // A torn last line is still being written.
    if (torn && !this.builder.isOpen()) this.builder.open(entry.id);
  }

  private assistant(
    blocks: ContentBlock[],
    from: EntryProvenance,
    timestamp: string,
    idSuffix: string,
  ): void {
    if (this.open) {
      const m = this.open.message;
      m.content = [...(m.content as ContentBlock[]), ...blocks];
      m.stopReason = blocks.some((b) => b.type === "toolCall") ? "toolUse" : m.stopReason;
      this.open.importedFrom.merged = [...(this.open.importedFrom.merged ?? []), from];
      this.builder.report.merged++;
      return;
    }
    const entry = this.add(
      {
        type: "message",
        message: {
          role: "assistant",
          content: blocks,
          api: "openai-responses",
          provider: "openai",
          model: this.model ?? "unknown",
          stopReason: blocks.some((b) => b.type === "toolCall") ? "toolUse" : "stop",
          timestamp: Date.parse(timestamp),
        },
      },
      from.line ?? 0,
      timestamp,
      idSuffix,
      from,
    ) as OpenEntry;
    this.open = entry;
    this.lastAssistant = entry;
    // Its turn's next items merge into it, and its token count comes later.
    this.builder.open(entry.id);
  }

  private add(
    fields: Omit<EntryFields, "id" | "parentId" | "timestamp">,
    line: number,
    timestamp: string,
    idSuffix = "",
    from: EntryProvenance = { line },
  ): SessionEntry {
    this.lastTime = timestamp;
    if (!(fields.type === "message" && (fields.message as AgentMessage).role === "assistant")) {
      this.open = undefined;
    }
    return this.builder.add(
      {
        ...fields,
        id: `line-${line}${idSuffix}`,
        parentId: this.builder.lastId(),
        timestamp,
      } as EntryFields,
      from,
    );
  }
}

function provenance(line: number, item: CodexResponseItem): EntryProvenance {
  const id = item.call_id ?? item.id ?? undefined;
  return { line, ...(id ? { id } : {}) };
}
