import { checkpointSummary } from "./checkpoint-entry.js";

type Json = Record<string, unknown>;

/** The entry's message object, when it is a `message` entry. */
export function messageOf(entry: Json): Json | undefined {
  const message = entry.type === "message" ? entry.message : undefined;
  return typeof message === "object" && message !== null ? (message as Json) : undefined;
}

/** Content blocks of a message-like object; a plain string becomes one text block. */
export function blocksOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content)
    ? content.filter((b): b is Json => typeof b === "object" && b !== null)
    : [];
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Joined text blocks of some content. */
export function textOf(content: unknown): string {
  return blocksOf(content)
    .filter((b) => b.type === "text")
    .map((b) => str(b.text))
    .join("\n");
}

/** True for an assistant message that carries only tool calls (no text, not cut short). */
export function isToolOnlyAssistant(entry: Json): boolean {
  const message = messageOf(entry);
  if (message?.role !== "assistant") return false;
  if (message.stopReason === "aborted" || message.stopReason === "error") return false;
  const blocks = blocksOf(message.content);
  return !blocks.some((b) => b.type === "text" && str(b.text).trim());
}

/** The kind shown as the entry's badge: a message role, or the entry type. */
export function kindOf(entry: Json): string {
  const message = messageOf(entry);
  return message ? str(message.role) || "message" : str(entry.type);
}

/** A one-line description for the tree sidebar. */
export function summaryOf(entry: Json): string {
  const message = messageOf(entry);
  let text = "";
  if (message) {
    switch (message.role) {
      case "user":
      case "custom":
        text = textOf(message.content);
        break;
      case "assistant": {
        text = textOf(message.content);
        if (!text.trim()) {
          const calls = blocksOf(message.content).filter((b) => b.type === "toolCall");
          text = calls.length ? `→ ${calls.map((c) => str(c.name)).join(", ")}` : "(no text)";
        }
        break;
      }
      case "toolResult":
        text = `${str(message.toolName)}: ${textOf(message.content)}`;
        break;
      case "bashExecution":
        text = `$ ${str(message.command)}`;
        break;
      default:
        text = textOf(message.content);
    }
  } else {
    switch (entry.type) {
      case "compaction":
        text = `compaction: ${str(entry.summary)}`;
        break;
      case "branch_summary":
        text = `branch summary: ${str(entry.summary)}`;
        break;
      case "label":
        text = str(entry.label) ? `label “${str(entry.label)}”` : "label cleared";
        break;
      case "model_change":
        text = `model → ${str(entry.provider)}/${str(entry.modelId)}`;
        break;
      case "thinking_level_change":
        text = `thinking → ${str(entry.thinkingLevel)}`;
        break;
      case "session_info":
        text = `name → ${str(entry.name)}`;
        break;
      case "custom_message":
        text = `${str(entry.customType)}: ${textOf(entry.content)}`;
        break;
      case "custom":
        text = checkpointSummary(entry) ?? `custom: ${str(entry.customType)}`;
        break;
      case "ttsr_injection":
        text = `stream rule: ${ruleNames(entry).join(", ")}`;
        break;
      default:
        text = str(entry.type);
    }
  }
  return text.replace(/\s+/g, " ").trim().slice(0, 160);
}

/** Names of the rules a `ttsr_injection` entry injected. */
export function ruleNames(entry: Json): string[] {
  const rules = Array.isArray(entry.injectedRules) ? entry.injectedRules : [];
  return rules
    .map((r) => (typeof r === "string" ? r : str((r as Json)?.rule ?? (r as Json)?.name)))
    .filter(Boolean);
}

/** Lower-cased text that search matches against: everything a reader could see. */
export function searchTextOf(entry: Json, label: string | undefined): string {
  const parts: string[] = [label ?? "", str(entry.type)];
  const message = messageOf(entry);
  const holder = message ?? entry;
  parts.push(str(holder.role), str(holder.customType), str(holder.toolName));
  for (const block of blocksOf(holder.content)) {
    if (block.type === "text") parts.push(str(block.text));
    else if (block.type === "thinking") parts.push(str(block.thinking));
    else if (block.type === "toolCall")
      parts.push(str(block.name), JSON.stringify(block.arguments ?? ""));
  }
  parts.push(
    str(holder.command),
    str(holder.output),
    str(entry.summary),
    str(entry.name),
    str(entry.label),
    str(entry.modelId),
    ...ruleNames(entry),
    checkpointSummary(entry) ?? "",
  );
  return parts.join("\n").toLowerCase();
}
