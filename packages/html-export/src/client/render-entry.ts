import type { RenderedCustomMessage } from "../custom-message-renderer.js";
import type { EntryMark } from "../page-data.js";
import { renderCheckpoint } from "./checkpoint-entry.js";
import { el, formatTime, formatTokens } from "./dom.js";
import { blocksOf, kindOf, messageOf, ruleNames } from "./entry-text.js";
import { highlight, renderMarkdown } from "./markdown.js";
import { type OrchestrationContext, renderOrchestration } from "./orchestration-entry.js";
import { safeHtmlFragment } from "./safe-html.js";

type Json = Record<string, unknown>;

/** What rendering an entry needs from the page. */
export interface RenderContext {
  label: string | undefined;
  mark: EntryMark | undefined;
  /** Navigates to an entry (used by compaction and branch-summary references). */
  goTo(id: string): void;
  /** Whether an id exists in the session. */
  has(id: string): boolean;
  /** Where the entry sits among its siblings, when its parent forks. */
  fork?: { position: number; count: number; go(delta: number): void };
  /** Child-session cards, ancestry links, system prompts and embedded child sessions. */
  orchestration: OrchestrationContext;
  /** How an extension's renderer shows this `custom_message`, if one did. */
  rendered?: RenderedCustomMessage | undefined;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function markdownBlock(text: string): HTMLElement {
  const div = el("div", "md");
  div.innerHTML = renderMarkdown(text);
  return div;
}

function collapsible(className: string, title: string, body: Node, open = false): HTMLElement {
  const details = el("details", className);
  details.open = open;
  details.append(el("summary", undefined, title), body);
  return details;
}

function codeBlock(code: string, language?: string): HTMLElement {
  const pre = el("pre", "code");
  const inner = el("code");
  inner.innerHTML = highlight(code, language);
  pre.append(inner);
  return pre;
}

function plainBlock(text: string, className = "plain"): HTMLElement {
  return el("pre", className, text);
}

const IMAGE_MIME = /^image\/(png|jpe?g|gif|webp)$/i;
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

function imageBlock(block: Json): HTMLElement {
  const mime = str(block.mimeType);
  const data = str(block.data);
  if (!IMAGE_MIME.test(mime) || !BASE64.test(data)) {
    return el("div", "note", `[image of type ${mime || "unknown"} not shown]`);
  }
  const img = el("img", "image");
  img.alt = "image";
  img.src = `data:${mime};base64,${data.replace(/\s+/g, "")}`;
  return img;
}

// The argument a reader scans for first: a path, a command or a pattern.
function argumentPreview(args: unknown): string {
  if (!args || typeof args !== "object") return "";
  const record = args as Json;
  const value = ["path", "file_path", "command", "pattern", "url", "query"]
    .map((key) => record[key])
    .find((v): v is string => typeof v === "string" && v.length > 0);
  if (!value) return "";
  const line = value.split("\n")[0] ?? "";
  return ` · ${line.length > 80 ? `${line.slice(0, 79)}…` : line}`;
}

function lineCount(content: unknown): string {
  const text = blocksOf(content)
    .filter((b) => b.type === "text")
    .map((b) => str(b.text))
    .join("\n");
  if (!text) return "";
  const lines = text.split("\n").length;
  return ` · ${lines} line${lines === 1 ? "" : "s"}`;
}

function renderBlocks(content: unknown, into: HTMLElement, markdown: boolean): void {
  for (const block of blocksOf(content)) {
    switch (block.type) {
      case "text":
        into.append(markdown ? markdownBlock(str(block.text)) : plainBlock(str(block.text)));
        break;
      case "thinking":
        if (str(block.thinking).trim())
          into.append(collapsible("thinking", "Thinking", plainBlock(str(block.thinking))));
        else if (block.redacted) into.append(el("div", "note", "Thinking (redacted)"));
        break;
      case "toolCall":
        into.append(
          collapsible(
            "tool-call",
            `Tool call · ${str(block.name)}${argumentPreview(block.arguments)}`,
            codeBlock(JSON.stringify(block.arguments ?? {}, null, 2), "json"),
          ),
        );
        break;
      case "image":
        into.append(imageBlock(block));
        break;
      default:
        into.append(codeBlock(JSON.stringify(block, null, 2), "json"));
    }
  }
}

function usageLine(message: Json): string {
  const usage = message.usage as Json | undefined;
  const parts: string[] = [];
  if (typeof message.model === "string") parts.push(message.model);
  if (usage && typeof usage === "object") {
    const n = (k: string) => (typeof usage[k] === "number" ? (usage[k] as number) : 0);
    parts.push(`↑${formatTokens(n("input"))} ↓${formatTokens(n("output"))}`);
    if (n("cacheRead")) parts.push(`cache ${formatTokens(n("cacheRead"))}`);
    const cost = (usage.cost as Json | undefined)?.total;
    if (typeof cost === "number" && cost > 0) parts.push(`$${cost.toFixed(4)}`);
  }
  return parts.join(" · ");
}

function refButton(text: string, id: string, ctx: RenderContext): HTMLElement {
  if (!ctx.has(id)) return el("code", undefined, id);
  const button = el("button", "ref", text);
  button.type = "button";
  button.addEventListener("click", () => ctx.goTo(id));
  return button;
}

function renderMessage(
  message: Json,
  body: HTMLElement,
  card: HTMLElement,
  ctx: RenderContext,
): void {
  switch (message.role) {
    case "user":
      renderBlocks(message.content, body, true);
      break;
    case "assistant": {
      renderBlocks(message.content, body, true);
      const stop = str(message.stopReason);
      if (ctx.mark === "cut-by-stream-rule") {
        body.prepend(
          el(
            "div",
            "banner cut",
            "Aborted attempt: a stream rule cut this answer and the turn was retried",
          ),
        );
      } else if (stop === "aborted") {
        body.prepend(el("div", "banner aborted", "Aborted attempt"));
      } else if (stop === "error") {
        body.append(
          el(
            "div",
            "banner error",
            `Error: ${str(message.errorMessage) || "the model call failed"}`,
          ),
        );
      }
      const usage = usageLine(message);
      if (usage) card.append(el("footer", "usage", usage));
      break;
    }
    case "toolResult": {
      const inner = el("div");
      renderBlocks(message.content, inner, false);
      const title = `${message.isError ? "Tool error" : "Tool result"} · ${str(message.toolName)}${lineCount(message.content)}`;
      body.append(
        collapsible(message.isError ? "tool-result is-error" : "tool-result", title, inner),
      );
      break;
    }
    case "bashExecution": {
      const inner = el("div");
      inner.append(codeBlock(str(message.command), "bash"), plainBlock(str(message.output)));
      const status = message.cancelled ? "cancelled" : `exit ${String(message.exitCode ?? "?")}`;
      body.append(
        collapsible("tool-result", `$ ${str(message.command).split("\n")[0]} (${status})`, inner),
      );
      break;
    }
    default:
      renderBlocks(message.content, body, true);
  }
}

function renderCustomMessage(entry: Json, body: HTMLElement, ctx: RenderContext): void {
  if (ctx.mark === "stream-rule") {
    body.append(el("div", "banner stream-rule", "Stream rule interrupt"));
  }
  if (entry.display === false)
    body.append(el("div", "note", "Hidden from the user; sent to the model"));
  const rendered = entry.display === false ? undefined : ctx.rendered;
  if (rendered) {
    body.append(renderedView(rendered));
    const content = el("div");
    renderBlocks(entry.content, content, true);
    body.append(collapsible("details-content", "Content sent to the model", content));
  } else renderBlocks(entry.content, body, true);
  if (entry.details !== undefined) {
    body.append(
      collapsible(
        "details-json",
        "Details",
        codeBlock(JSON.stringify(entry.details, null, 2), "json"),
      ),
    );
  }
}

/** An extension's rendering: text shown literally, HTML cut to a safe subset. */
function renderedView(rendered: RenderedCustomMessage): HTMLElement {
  const box = el("div", "rendered-message");
  if ("html" in rendered) box.append(safeHtmlFragment(rendered.html));
  else box.append(el("pre", "plain", rendered.text));
  if (rendered.by) box.append(el("div", "note rendered-by", `Shown by ${rendered.by}`));
  return box;
}

function renderOther(entry: Json, body: HTMLElement, card: HTMLElement, ctx: RenderContext): void {
  switch (entry.type) {
    case "compaction": {
      const head = el("div", "banner compaction");
      head.append(
        `Compaction: earlier context (${formatTokens(Number(entry.tokensBefore) || 0)} tokens) replaced by this summary; kept from `,
      );
      head.append(refButton(str(entry.firstKeptEntryId), str(entry.firstKeptEntryId), ctx));
      body.append(head, markdownBlock(str(entry.summary)));
      break;
    }
    case "branch_summary": {
      const head = el("div", "banner branch-summary");
      head.append("Branch summary: what happened on the abandoned branch ending at ");
      const from = str(entry.fromId);
      head.append(from === "root" ? el("code", undefined, "(root)") : refButton(from, from, ctx));
      body.append(head, markdownBlock(str(entry.summary)));
      break;
    }
    case "ttsr_injection": {
      const names = ruleNames(entry);
      body.append(
        el(
          "div",
          "banner stream-rule",
          `Stream rule interrupt: injected ${names.join(", ") || "rules"}`,
        ),
      );
      break;
    }
    case "custom_message":
      renderCustomMessage(entry, body, ctx);
      break;
    case "label":
      body.append(
        el(
          "div",
          "note",
          str(entry.label)
            ? `Label “${str(entry.label)}” set on ${str(entry.targetId)}`
            : `Label cleared on ${str(entry.targetId)}`,
        ),
      );
      break;
    case "model_change":
      body.append(
        el("div", "note", `Model changed to ${str(entry.provider)}/${str(entry.modelId)}`),
      );
      break;
    case "thinking_level_change":
      body.append(el("div", "note", `Thinking level set to ${str(entry.thinkingLevel)}`));
      break;
    case "session_info":
      body.append(
        el(
          "div",
          "note",
          str(entry.name) ? `Session named “${str(entry.name)}”` : "Session name cleared",
        ),
      );
      break;
    case "custom":
      if (renderOrchestration(str(entry.id), body, card, ctx.orchestration)) break;
      if (renderCheckpoint(entry, body, card)) break;
      body.append(
        collapsible(
          "details-json",
          `Extension data · ${str(entry.customType)}`,
          codeBlock(JSON.stringify(entry.data ?? null, null, 2), "json"),
        ),
      );
      break;
    default:
      body.append(
        collapsible(
          "details-json",
          `Entry · ${str(entry.type)}`,
          codeBlock(JSON.stringify(entry, null, 2), "json"),
        ),
      );
  }
}

function forkSwitch(fork: NonNullable<RenderContext["fork"]>): HTMLElement {
  const box = el("span", "fork-switch");
  box.title = "This entry is one of several branches from the same point";
  const button = (text: string, delta: number, label: string) => {
    const b = el("button", "fork-step", text);
    b.type = "button";
    b.setAttribute("aria-label", label);
    b.addEventListener("click", () => fork.go(delta));
    return b;
  };
  box.append(
    button("‹", -1, "Previous branch"),
    el("span", undefined, `branch ${fork.position + 1}/${fork.count}`),
    button("›", 1, "Next branch"),
  );
  return box;
}

const KIND_NAMES: Record<string, string> = {
  toolResult: "tool result",
  bashExecution: "bash",
  custom_message: "extension message",
  custom: "extension data",
  ttsr_injection: "stream rule",
  branch_summary: "branch summary",
  model_change: "model",
  thinking_level_change: "thinking level",
  session_info: "session name",
};

const COMPACT_TYPES = new Set([
  "label",
  "model_change",
  "thinking_level_change",
  "session_info",
  "custom",
]);

/** Fills an entry card (created empty by the message list) with the entry's content. */
export function renderEntry(entry: Json, card: HTMLElement, ctx: RenderContext): void {
  const kind = kindOf(entry);
  card.classList.add(`kind-${kind.replace(/[^a-z_-]/gi, "")}`);
  if (COMPACT_TYPES.has(str(entry.type))) card.classList.add("compact");
  if (ctx.mark) card.classList.add(`mark-${ctx.mark}`);
  const head = el("header");
  head.append(el("span", "badge", KIND_NAMES[kind] ?? kind.replace(/_/g, " ")));
  if (ctx.label) head.append(el("span", "label", ctx.label));
  head.append(el("time", undefined, formatTime(entry.timestamp)));
  if (ctx.fork) head.append(forkSwitch(ctx.fork));
  const copy = el("button", "copy-link", "copy link");
  copy.type = "button";
  copy.title = "Copy a link to this entry";
  copy.setAttribute("aria-label", "Copy a link to this entry");
  head.append(copy);
  const body = el("div", "body");
  card.append(head, body);
  const embedded = ctx.orchestration.view.embedded[str(entry.id)];
  if (embedded) {
    card.classList.add("child-start");
    const banner = el("div", "banner child-session");
    banner.append(
      `Child session ${embedded.sessionId} (${embedded.entryCount} entries) starts here, under `,
    );
    const parentId = embedded.parentEntryId;
    banner.append(
      ctx.has(parentId)
        ? (() => {
            const b = el("button", "ref", "its parent's entry");
            b.type = "button";
            b.addEventListener("click", () => ctx.goTo(parentId));
            return b;
          })()
        : el("code", undefined, parentId),
    );
    body.append(banner);
  }
  const message = messageOf(entry);
  if (message) renderMessage(message, body, card, ctx);
  else renderOther(entry, body, card, ctx);
}
