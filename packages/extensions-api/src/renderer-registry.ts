import { describeError } from "./errors.js";
import { runAsExtension } from "./extension-scope.js";
import {
  htmlRendererOutputSchema,
  type MessageRenderer,
  type MessageRenderOptions,
  type RenderableMessage,
  type RenderedMessage,
  rendererOutputSchema,
} from "./message-renderer.js";
import type { ExtensionRecord } from "./registry.js";

/** Reports a renderer's failure for the runner. */
export type RendererReport = (
  record: ExtensionRecord,
  kind: "invalid_registration" | "collision" | "threw" | "invalid_return",
  error: string,
) => void;

/**
 * The message renderers extensions registered: first registration of a type wins, and a
 * renderer that throws or returns something else than text falls back to the default view
 * and is reported. Internal to the runner.
 */
export class RendererRegistry {
  private readonly renderers = new Map<
    string,
    { renderer: MessageRenderer; record: ExtensionRecord }
  >();

  constructor(private readonly report: RendererReport) {}

  add(record: ExtensionRecord, customType: string, renderer: MessageRenderer): void {
    const existing = this.renderers.get(customType);
    if (existing) {
      this.report(
        record,
        "collision",
        `a renderer of ${customType} is already registered by ${existing.record.name}; this one is ignored`,
      );
      return;
    }
    this.renderers.set(customType, { renderer, record });
  }

  /** The `custom_message` types that have a renderer, in registration order. */
  types(): string[] {
    return [...this.renderers.entries()]
      .filter(([, { record }]) => record.state === "active")
      .map(([type]) => type);
  }

  /**
   * Renders a message with its type's renderer; `undefined` for a hidden message
   * (`display: false`), a type without a renderer, or a renderer that fails.
   */
  render(message: RenderableMessage, options: MessageRenderOptions): RenderedMessage | undefined {
    if (!message.display) return undefined;
    const entry = this.renderers.get(message.customType);
    if (entry?.record.state !== "active") return undefined;
    let output: unknown;
    try {
      output = runAsExtension(entry.record.owner, () =>
        entry.renderer(structuredClone(message), { ...options }),
      );
    } catch (error) {
      this.report(
        entry.record,
        "threw",
        `the renderer of ${message.customType} threw: ${describeError(error)}`,
      );
      return undefined;
    }
    const html = options.target === "html";
    const parsed = (html ? htmlRendererOutputSchema : rendererOutputSchema).safeParse(output);
    if (!parsed.success) {
      this.report(
        entry.record,
        "invalid_return",
        `the renderer of ${message.customType} returned something else than a string or an array of strings${html ? " or { html }" : ""}`,
      );
      return undefined;
    }
    if (parsed.data === undefined) return undefined;
    if (typeof parsed.data === "object" && "html" in parsed.data) {
      return { lines: [], html: parsed.data.html, extensionName: entry.record.name };
    }
    const lines = typeof parsed.data === "string" ? parsed.data.split("\n") : parsed.data;
    return { lines, extensionName: entry.record.name };
  }
}
