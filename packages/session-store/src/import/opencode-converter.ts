import type { ContentBlock, SessionEntry } from "../format/entries.js";
import { type EntryFields, type ImportedLogBuilder, isoTime } from "./log-builder.js";
import type { OpencodeMessage, OpencodePart } from "./opencode-files.js";

/**
 * One opencode session's messages as a path: a message's steps become assistant messages,
 * each followed by the results of the tools it called; a summary message becomes a
 * compaction; a change of model becomes a `model_change` entry.
 */
export class OpencodeConverter {
  private model: string | undefined;
  constructor(private readonly builder: ImportedLogBuilder) {}

  message(info: OpencodeMessage, parts: OpencodePart[], file: string): void {
    const timestamp = isoTime(info.time?.created, new Date(0).toISOString());
    const ms = Date.parse(timestamp);
    const from = { file, id: info.id };
    this.builder.report.lines += 1 + parts.length;
    if (info.role === "user") {
      const content = parts.flatMap((p) => userBlock(p));
      this.add(
        {
          type: "message",
          id: info.id,
          timestamp,
          message: { role: "user", content, timestamp: ms },
        },
        from,
      );
      return;
    }
    const provider = info.providerID ?? info.model?.providerID ?? "unknown";
    const modelId = info.modelID ?? info.model?.modelID ?? "unknown";
    if (info.summary === true) {
      const summary = parts
        .filter((p) => p.type === "text")
        .map((p) => p.text ?? "")
        .join("\n");
      this.add(
        {
          type: "compaction",
          id: info.id,
          timestamp,
          summary,
          tokensBefore: 0,
          details: { source: "opencode" },
        },
        from,
      );
      return;
    }
    if (`${provider}/${modelId}` !== this.model && modelId !== "unknown") {
      this.model = `${provider}/${modelId}`;
      this.add(
        { type: "model_change", id: `${info.id}-model`, timestamp, provider, modelId },
        from,
      );
    }
    let blocks: ContentBlock[] = [];
    let tools: OpencodePart[] = [];
    let step = 0;
    let usage: Record<string, number> | undefined;
    const flush = (): void => {
      if (blocks.length === 0) return;
      step++;
      this.add(
        {
          type: "message",
          id: step === 1 ? info.id : `${info.id}-step${step}`,
          timestamp,
          message: {
            role: "assistant",
            content: blocks,
            provider,
            model: modelId,
            stopReason: tools.length > 0 ? "toolUse" : "stop",
            ...(usage ? { usage } : {}),
            timestamp: ms,
          },
        },
        from,
      );
      for (const tool of tools) {
        const state = tool.state ?? {};
        const failed = state.status === "error";
        const output = failed ? state.error : state.output;
        this.add(
          {
            type: "message",
            id: `${tool.id}-result`,
            timestamp,
            message: {
              role: "toolResult",
              toolCallId: tool.callID ?? tool.id,
              toolName: tool.tool ?? "unknown",
              content: [
                {
                  type: "text",
                  text: typeof output === "string" ? output : JSON.stringify(output ?? ""),
                },
              ],
              isError: failed,
              timestamp: ms,
            },
          },
          { file, id: tool.id },
        );
      }
      blocks = [];
      tools = [];
      usage = undefined;
    };
    for (const part of parts) {
      if (part.type === "step-start" && tools.length > 0) flush();
      if (part.type === "step-finish") usage = stepUsage(part.tokens) ?? usage;
      if (part.type === "text") blocks.push({ type: "text", text: part.text ?? "" });
      else if (part.type === "reasoning")
        blocks.push({ type: "thinking", thinking: part.text ?? "" });
      else if (part.type === "tool") {
        blocks.push({
          type: "toolCall",
          id: part.callID ?? part.id,
          name: part.tool ?? "",
          arguments: part.state?.input ?? {},
        });
        tools.push(part);
      } else if (part.type !== "step-start" && part.type !== "step-finish") {
        blocks.push({ ...part, type: `opencode_${part.type}` });
      }
    }
    flush();
  }

  private add(
    fields: Omit<EntryFields, "parentId">,
    from: { file: string; id: string },
  ): SessionEntry {
    return this.builder.add({ ...fields, parentId: this.builder.lastId() } as EntryFields, from);
  }
}

/** A step's token counts (`{ input, output, reasoning, cache: { read, write } }`) as Arbor usage. */
function stepUsage(tokens: unknown): Record<string, number> | undefined {
  if (typeof tokens !== "object" || tokens === null) return undefined;
  const t = tokens as {
    input?: unknown;
    output?: unknown;
    reasoning?: unknown;
    cache?: { read?: unknown; write?: unknown };
  };
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const input = n(t.input);
  const output = n(t.output) + n(t.reasoning);
  const cacheRead = n(t.cache?.read);
  const cacheWrite = n(t.cache?.write);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
  };
}

function userBlock(part: OpencodePart): ContentBlock[] {
  if (part.type === "text") return [{ type: "text", text: part.text ?? "" }];
  if (part.type === "file") {
    const match = /^data:([^;,]+);base64,(.*)$/s.exec(part.url ?? "");
    if (match && part.mime?.startsWith("image/"))
      return [{ type: "image", mimeType: match[1] as string, data: match[2] as string }];
    return [{ type: "text", text: `[file: ${part.filename ?? part.url ?? "unnamed"}]` }];
  }
  return [{ ...part, type: `opencode_${part.type}` }];
}
