import type { OrchestrationView } from "../orchestration/orchestration-view.js";
import { el, formatTokens } from "./dom.js";

/** What the page shows for one entry beyond its own data: orchestration cards and prompts. */
export interface OrchestrationContext {
  view: OrchestrationView;
  /** Shows an entry on the path to `leafId` (its own session's leaf), else its newest path. */
  open(id: string, leafId: string | undefined): void;
  /** Whether an id exists on the page. */
  has(id: string): boolean;
}

function button(text: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = el("button", className, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function fileLink(fileName: string, text: string): HTMLAnchorElement {
  const a = el("a", "export-link", text);
  // A plain relative file name (no separators) in the same folder as this page.
  a.href = `./${encodeURIComponent(fileName)}`;
  return a;
}

function field(list: HTMLElement, name: string, value: string): void {
  list.append(el("dt", undefined, name), el("dd", undefined, value));
}

/** Renders a child-session, ancestry or system-prompt entry; false when it is none of them. */
export function renderOrchestration(
  id: string,
  body: HTMLElement,
  card: HTMLElement,
  ctx: OrchestrationContext,
): boolean {
  const child = ctx.view.children[id];
  if (child) {
    card.classList.add("orchestration-child", `outcome-${child.outcome.replace(/[^a-z_-]/gi, "")}`);
    body.append(el("div", "child-title", `Child session · ${child.agent} (${child.role})`));
    const list = el("dl", "child-fields");
    field(list, "Agent path", child.agentPath);
    field(list, "Outcome", child.outcome);
    if (child.message) field(list, "Message", child.message);
    if (child.tokens !== undefined) field(list, "Tokens", formatTokens(child.tokens));
    if (child.cost !== undefined) field(list, "Cost", `$${child.cost.toFixed(4)}`);
    field(list, "Session", child.childSessionId);
    body.append(list);
    const links = el("div", "child-links");
    const target = child.target;
    if (target !== undefined && ctx.has(target)) {
      links.append(
        button("Open child session on this page", "open-child", () =>
          ctx.open(target, child.targetLeaf),
        ),
      );
    }
    links.append(fileLink(child.fileName, `Child export: ${child.fileName}`));
    body.append(links);
    if (child.note) body.append(el("div", "note child-note", child.note));
    return true;
  }
  const ancestry = ctx.view.ancestry[id];
  if (ancestry) {
    card.classList.add("orchestration-ancestry");
    const who = ancestry.agent
      ? `${ancestry.agent}${ancestry.role ? ` (${ancestry.role})` : ""}`
      : "";
    body.append(
      el("div", "child-title", `Started by session ${ancestry.parentId}${who ? ` as ${who}` : ""}`),
    );
    const list = el("dl", "child-fields");
    if (ancestry.agentPath) field(list, "Agent path", ancestry.agentPath);
    if (ancestry.originId) field(list, "Origin session", ancestry.originId);
    body.append(list);
    const links = el("div", "child-links");
    const target = ancestry.target;
    if (target !== undefined && ctx.has(target)) {
      links.append(
        button("Show parent entry", "open-parent", () => ctx.open(target, ancestry.targetLeaf)),
      );
    }
    links.append(fileLink(ancestry.fileName, `Parent export: ${ancestry.fileName}`));
    body.append(links);
    return true;
  }
  const prompt = ctx.view.systemPrompts[id];
  if (prompt !== undefined) {
    card.classList.add("system-prompt");
    const details = el("details", "system-prompt");
    details.append(
      el("summary", undefined, `System prompt · ${prompt.length} characters`),
      prompt ? el("pre", "plain", prompt) : el("div", "note", "(no system prompt)"),
    );
    body.append(details);
    return true;
  }
  return false;
}

/** The tree sidebar's line and kind for an orchestration entry, or undefined. */
export function orchestrationSummary(view: OrchestrationView, id: string): string | undefined {
  const child = view.children[id];
  if (child) return `child: ${child.agent} (${child.role}) · ${child.outcome}`;
  const ancestry = view.ancestry[id];
  if (ancestry) return `started by ${ancestry.parentId}`;
  const prompt = view.systemPrompts[id];
  return prompt === undefined
    ? undefined
    : `system prompt: ${prompt.replace(/\s+/g, " ").slice(0, 120)}`;
}

/** Whether an entry is an orchestration record the everyday views show. */
export function isOrchestrationEntry(view: OrchestrationView, id: string): boolean {
  return (
    view.children[id] !== undefined ||
    view.ancestry[id] !== undefined ||
    view.systemPrompts[id] !== undefined
  );
}

/** The words search matches in an orchestration entry: what its card or block shows. */
export function orchestrationSearchText(view: OrchestrationView, id: string): string {
  const child = view.children[id];
  if (child) {
    return [child.agent, child.role, child.agentPath, child.outcome, child.childSessionId]
      .concat(child.message ?? [])
      .join("\n");
  }
  const ancestry = view.ancestry[id];
  if (ancestry)
    return [ancestry.parentId, ancestry.agentPath ?? "", ancestry.agent ?? ""].join("\n");
  return view.systemPrompts[id] ?? "";
}
