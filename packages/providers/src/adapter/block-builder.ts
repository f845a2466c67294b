import type { ModelErrorEvent, ModelEvent } from "../spec/events.js";
import { parseToolArguments } from "./tool-arguments.js";

type OpenBlock =
  | { kind: "text"; index: number; text: string }
  | { kind: "thinking"; index: number; text: string; signature: string | undefined }
  | { kind: "tool"; index: number; text: string; id: string; name: string; key: unknown };

/**
 * Turns provider deltas into Arbor's start / delta / end events, numbering blocks in the
 * order they open and closing the previous block when another kind begins. Events go to
 * `out`, which the adapter drains after each provider chunk.
 */
export class BlockBuilder {
  readonly out: ModelEvent[] = [];
  #next = 0;
  #open: OpenBlock | undefined;

  /** Adds text, opening a text block if needed. */
  text(delta: string): void {
    if (delta === "") return;
    let open = this.#open;
    if (open?.kind !== "text") {
      this.close();
      open = { kind: "text", index: this.#next++, text: "" };
      this.#open = open;
      this.out.push({ type: "text_start", index: open.index });
    }
    open.text += delta;
    this.out.push({ type: "text_delta", index: open.index, delta });
  }

  /** Adds reasoning text, opening a thinking block if needed. */
  thinking(delta: string): void {
    if (delta === "") return;
    this.openThinking();
    const open = this.#open as Extract<OpenBlock, { kind: "thinking" }>;
    open.text += delta;
    this.out.push({ type: "thinking_delta", index: open.index, delta });
  }

  /** Opens a thinking block (also when it stays empty, e.g. Anthropic's block start). */
  openThinking(): void {
    if (this.#open?.kind === "thinking") return;
    this.close();
    this.#open = { kind: "thinking", index: this.#next++, text: "", signature: undefined };
    this.out.push({ type: "thinking_start", index: this.#open.index });
  }

  /**
   * Adds a whole block of reasoning the provider encrypted (Anthropic `redacted_thinking`):
   * a `thinking_start` and a `thinking_end` with `redacted` and the opaque data as `signature`.
   */
  redactedThinking(data: string): void {
    this.close();
    const index = this.#next++;
    this.out.push({ type: "thinking_start", index });
    this.out.push({ type: "thinking_end", index, thinking: "", signature: data, redacted: true });
  }

  /** True when a thinking block is open and has no signature yet. */
  isOpenUnsignedThinking(): boolean {
    return this.#open?.kind === "thinking" && this.#open.signature === undefined;
  }

  /** Adds to the signature of the open thinking block. */
  signature(delta: string): void {
    const open = this.#open;
    if (open?.kind === "thinking") open.signature = (open.signature ?? "") + delta;
  }

  /** Opens a tool call block; `key` identifies it in later provider deltas. */
  openTool(key: unknown, id: string, name: string): void {
    this.close();
    this.#open = { kind: "tool", index: this.#next++, text: "", id, name, key };
    this.out.push({ type: "toolcall_start", index: this.#open.index, id, name });
  }

  /** True when the open block is the tool call known by `key`. */
  isOpenTool(key: unknown): boolean {
    return this.#open?.kind === "tool" && this.#open.key === key;
  }

  /** True when a tool call block is open. */
  hasOpenTool(): boolean {
    return this.#open?.kind === "tool";
  }

  /** The key the open tool call was opened with, or `undefined` when none is open. */
  openToolKey(): unknown {
    return this.#open?.kind === "tool" ? this.#open.key : undefined;
  }

  /** Adds a fragment of argument JSON to the open tool call. */
  toolArguments(delta: string): void {
    const open = this.#open;
    if (open?.kind !== "tool" || delta === "") return;
    open.text += delta;
    this.out.push({ type: "toolcall_delta", index: open.index, delta });
  }

  /**
   * Closes the open block, if any.
   *
   * @returns an `invalid_response` error when a tool call's arguments are not a JSON object.
   */
  close(): ModelErrorEvent | undefined {
    const open = this.#open;
    if (open === undefined) return undefined;
    this.#open = undefined;
    if (open.kind === "text") {
      this.out.push({ type: "text_end", index: open.index, text: open.text });
    } else if (open.kind === "thinking") {
      this.out.push({
        type: "thinking_end",
        index: open.index,
        thinking: open.text,
        ...(open.signature === undefined ? {} : { signature: open.signature }),
      });
    } else {
      const args = parseToolArguments(open.text);
      if (args === undefined) {
        return {
          type: "error",
          kind: "invalid_response",
          message: `tool call ${open.id} (${open.name}) has arguments that are not a JSON object`,
        };
      }
      this.out.push({
        type: "toolcall_end",
        index: open.index,
        toolCall: { type: "toolCall", id: open.id, name: open.name, arguments: args },
      });
    }
    return undefined;
  }
}
