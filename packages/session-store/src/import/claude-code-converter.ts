import type { AgentMessage, ContentBlock, SessionEntry } from "../format/entries.js";
import {
  convertClaudeBlock,
  convertClaudeUsage,
  convertStopReason,
  toolResultContent,
} from "./claude-code-content.js";
import type { ClaudeLine, ClaudeMessage } from "./claude-code-lines.js";
import type { EntryProvenance } from "./imported-log.js";
import { type EntryFields, ImportedLogBuilder } from "./log-builder.js";

/** The key of the chain of lines without a uuid that come before the first root. */
const ROOT = "\u0000root";

type AssistantEntry = SessionEntry & { message: AgentMessage; importedFrom: EntryProvenance };

/**
 * Turns the lines of one Claude Code conversation (the main one, or one sidechain) into
 * Arbor entries in the same tree shape: `parentUuid` links become parent ids, lines that
 * continue one API message (same `message.id`) merge into one entry, a `compact_boundary`
 * and the summary after it become one compaction entry, and a change of model on a path
 * becomes a `model_change` entry before the message that made it.
 */
export class ClaudeCodeConverter {
  readonly builder = new ImportedLogBuilder();
  /** Source uuid → the id of the entry that holds that line. */
  private readonly idOf = new Map<string, string>();
  /** Entry → the entry chained after it for a line without a uuid. */
  private readonly chainEnd = new Map<string, string>();
  private readonly modelOf = new Map<string, string>();
  /** Entries of bookkeeping lines (progress, snapshots, system notes). */
  private readonly bookkeeping = new Set<string>();
  private readonly toolNames: Map<string, string>;
  /** The entry of each API message (`message.id`), which later lines of it merge into. */
  private readonly assistants = new Map<string, AssistantEntry>();
  private lastTime = new Date(0).toISOString();

  constructor(toolNames: Map<string, string>) {
    this.toolNames = toolNames;
  }

  /** Adds one parsed line. `raw` is kept for line types without their own entry shape. */
  addLine(line: ClaudeLine, lineNumber: number): void {
    const timestamp = line.timestamp ?? this.lastTime;
    this.lastTime = timestamp;
    const from: EntryProvenance = { line: lineNumber, ...(line.uuid ? { id: line.uuid } : {}) };
    if (line.type === "system" && line.subtype === "compact_boundary") {
      this.addCompaction(line, from, timestamp);
    } else if ((line.type === "user" || line.type === "assistant") && line.message) {
      if (line.type === "assistant") this.addAssistant(line, line.message, from, timestamp);
      else this.addUser(line, line.message, from, timestamp);
    } else if (line.type === "summary" || line.type === "custom-title") {
      const name = line.type === "summary" ? line.summary : line.customTitle;
      this.addEntry(line, from, { type: "session_info", timestamp, name: name ?? "" });
    } else {
      // Progress, snapshot and system lines sit inside the conversation's chain (a later
      // line may name one as its parent) but are no turn of it: they are chained in, so
      // they never split the conversation, nor the lines of one API message.
      const entry = this.addEntry(
        line,
        from,
        { type: "custom", timestamp, customType: `claude-code.${line.type}`, data: line },
        undefined,
        undefined,
        { chained: true },
      );
      this.bookkeeping.add(entry.id);
    }
  }

  /** Keeps a line no reader understands as a raw custom entry. */
  addRaw(lineNumber: number, text: string, reason: string, torn = false): void {
    const parentId = this.tip(this.builder.lastId());
    const entry = this.builder.raw(lineNumber, text, reason, this.lastTime, torn);
    (entry as { parentId: string | null }).parentId = parentId;
    this.extendChain(parentId, entry.id);
    // A torn last line is still being written.
    if (torn && !this.builder.isOpen()) this.builder.open(entry.id);
  }

  private addAssistant(
    line: ClaudeLine,
    message: ClaudeMessage,
    from: EntryProvenance,
    timestamp: string,
  ): void {
    const blocks = contentBlocks(message.content);
    this.rememberToolNames(message);
    const open = message.id === undefined ? undefined : this.assistants.get(message.id);
    if (
      open &&
      line.parentUuid != null &&
      this.turnOf(this.idOf.get(line.parentUuid)) === open.id
    ) {
      // One API message written over several lines: one entry, usage counted once.
      const m = open.message;
      m.content = [...(m.content as ContentBlock[]), ...blocks];
      if (message.usage) m.usage = convertClaudeUsage(message.usage);
      const stop = convertStopReason(message.stop_reason);
      if (stop) m.stopReason = stop;
      open.importedFrom.merged = [
        ...(open.importedFrom.merged ?? []),
        { line: from.line, ...(from.id ? { id: from.id } : {}) },
      ];
      if (line.uuid) this.idOf.set(line.uuid, open.id);
      this.builder.report.merged++;
      return;
    }
    let parentId = this.parentOf(line);
    const model = message.model && message.model !== "<synthetic>" ? message.model : undefined;
    const pathModel = parentId ? this.modelOf.get(parentId) : undefined;
    if (model && pathModel && model !== pathModel) {
      const change = this.builder.add(
        {
          type: "model_change",
          id: `${line.uuid ?? `line-${from.line}`}-model`,
          parentId,
          timestamp,
          provider: "anthropic",
          modelId: model,
        },
        from,
      );
      parentId = change.id;
    }
    const stop = convertStopReason(message.stop_reason);
    const entry = this.addEntry(
      line,
      from,
      {
        type: "message",
        timestamp,
        message: {
          role: "assistant",
          content: blocks,
          api: "anthropic-messages",
          provider: "anthropic",
          model: message.model ?? pathModel ?? "unknown",
          ...(message.id ? { responseId: message.id } : {}),
          ...(message.usage ? { usage: convertClaudeUsage(message.usage) } : {}),
          stopReason: line.isApiErrorMessage === true ? "error" : (stop ?? "stop"),
          ...(line.isApiErrorMessage === true
            ? { errorMessage: messageText(message.content) }
            : {}),
          timestamp: Date.parse(timestamp),
        },
      },
      parentId,
    );
    if (model) this.modelOf.set(entry.id, model);
    if (message.id) this.assistants.set(message.id, entry as AssistantEntry);
    // Later lines of this API message (after its tools' results too) merge into it; a new
    // message closes the one before.
    this.builder.open(entry.id);
  }

  private addUser(
    line: ClaudeLine,
    message: ClaudeMessage,
    from: EntryProvenance,
    timestamp: string,
  ): void {
    const ms = Date.parse(timestamp);
    if (line.isCompactSummary) {
      const parentId = line.parentUuid ? this.idOf.get(line.parentUuid) : undefined;
      const compaction = parentId ? this.builder.get(parentId) : undefined;
      if (compaction?.type === "compaction") {
        (compaction as unknown as { summary: string }).summary = messageText(message.content);
        const kept = compaction as unknown as { importedFrom: EntryProvenance };
        kept.importedFrom.merged = [{ line: from.line, ...(from.id ? { id: from.id } : {}) }];
        if (line.uuid) this.idOf.set(line.uuid, compaction.id);
        this.builder.report.merged++;
        this.builder.close();
        return;
      }
    }
    const content = message.content ?? "";
    const parts: Record<string, unknown>[] = [];
    if (typeof content === "string") {
      parts.push({ role: "user", content, timestamp: ms });
    } else {
      const other: ContentBlock[] = [];
      for (const block of content) {
        if (block.type === "tool_result") {
          const b = block as Record<string, unknown>;
          const toolCallId = String(b.tool_use_id ?? "");
          parts.push({
            role: "toolResult",
            toolCallId,
            toolName: this.toolNames.get(toolCallId) ?? "unknown",
            content: toolResultContent(b.content),
            isError: b.is_error === true,
            ...(line.toolUseResult !== undefined ? { details: line.toolUseResult } : {}),
            timestamp: ms,
          });
        } else {
          other.push(convertClaudeBlock(block));
        }
      }
      if (other.length > 0) parts.push({ role: "user", content: other, timestamp: ms });
      if (parts.length === 0) parts.push({ role: "user", content: [], timestamp: ms });
    }
    // A prompt (anything but tool results) closes the answer before it.
    if (parts.some((p) => p.role !== "toolResult")) this.builder.close();
    const attachedTo = this.parentOf(line);
    let parentId = attachedTo;
    parts.forEach((message, i) => {
      const entry = this.addEntry(
        line,
        from,
        { type: "message", timestamp, message },
        parentId,
        i === 0 ? undefined : `${line.uuid ?? `line-${from.line}`}-${i + 1}`,
      );
      parentId = entry.id;
    });
    // Results of parallel calls each name their own call's line as parent; chained, they
    // follow one another, so every call keeps its result on the path.
    if (parts[0]?.role === "toolResult" && parentId !== null)
      this.extendChain(attachedTo, parentId);
  }

  private addCompaction(line: ClaudeLine, from: EntryProvenance, timestamp: string): void {
    const logical = line.logicalParentUuid ?? line.parentUuid;
    const parentId = logical ? this.tip(this.idOf.get(logical) ?? this.builder.lastId()) : null;
    const meta = (line.compactMetadata ?? {}) as Record<string, unknown>;
    const compaction = this.addEntry(
      line,
      from,
      {
        type: "compaction",
        timestamp,
        summary: typeof line.content === "string" ? line.content : "",
        tokensBefore: typeof meta.preTokens === "number" ? meta.preTokens : 0,
        details: { source: "claude-code", ...meta },
      },
      parentId,
    );
    // Its summary comes on the next line.
    this.builder.open(compaction.id);
  }

  /** Adds an entry for a source line under `parentId` (default: the line's own parent). */
  private addEntry(
    line: ClaudeLine,
    from: EntryProvenance,
    fields: Omit<EntryFields, "id" | "parentId">,
    parentId: string | null = this.parentOf(line),
    id?: string,
    options: { chained?: boolean } = {},
  ): SessionEntry {
    const entry = this.builder.add(
      { ...fields, id: id ?? line.uuid ?? `line-${from.line}`, parentId } as EntryFields,
      from,
    );
    if (line.uuid) this.idOf.set(line.uuid, entry.id);
    if (!line.uuid || options.chained) this.extendChain(parentId, entry.id);
    const model = parentId ? this.modelOf.get(parentId) : undefined;
    if (model && !this.modelOf.has(entry.id)) this.modelOf.set(entry.id, model);
    return entry;
  }

  /**
   * The parent of a line: its `parentUuid`'s entry, past any entries chained after that
   * for lines without a uuid (so those never split the conversation into branches). A
   * line without a uuid hangs after the latest entry; a dangling link after the latest too.
   */
  private parentOf(line: ClaudeLine): string | null {
    if (!line.uuid) return this.tip(this.builder.lastId());
    if (line.parentUuid === null) return this.chainEnd.has(ROOT) ? this.tip(ROOT) : null;
    const mapped = line.parentUuid ? this.idOf.get(line.parentUuid) : undefined;
    return this.tip(mapped ?? this.builder.lastId());
  }

  /**
   * The assistant entry whose turn `id` belongs to: walks up past bookkeeping lines and tool
   * results. Claude Code goes on writing an API message after the results of its first
   * calls came back, so a line of it may hang below those results.
   */
  private turnOf(id: string | undefined): string | undefined {
    let current = id;
    for (
      let entry = current ? this.builder.get(current) : undefined;
      entry;
      entry = current ? this.builder.get(current) : undefined
    ) {
      const role = (entry as { message?: AgentMessage }).message?.role;
      if (!this.bookkeeping.has(entry.id) && role !== "toolResult") return entry.id;
      current = entry.parentId ?? undefined;
    }
    return current;
  }

  private tip(id: string | null): string | null {
    let tip = id;
    if (tip === ROOT && !this.chainEnd.has(ROOT)) return null;
    for (let next = tip && this.chainEnd.get(tip); next; next = this.chainEnd.get(next)) tip = next;
    return tip;
  }

  private extendChain(parentId: string | null, id: string): void {
    this.chainEnd.set(parentId ?? ROOT, id);
  }

  private rememberToolNames(message: ClaudeMessage): void {
    if (!Array.isArray(message.content)) return;
    for (const block of message.content) {
      const b = block as Record<string, unknown>;
      if (block.type === "tool_use" && typeof b.id === "string")
        this.toolNames.set(b.id, String(b.name));
    }
  }
}

function contentBlocks(content: ClaudeMessage["content"]): ContentBlock[] {
  if (content === undefined) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map(convertClaudeBlock);
}

function messageText(content: ClaudeMessage["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .filter((b) => b.type === "text")
    .map((b) => String((b as Record<string, unknown>).text ?? ""))
    .join("\n");
}
