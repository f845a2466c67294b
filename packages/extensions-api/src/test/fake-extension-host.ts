import { MemorySessionStorage, Session, type SessionSeams } from "@arbor/session-store";
import type { CustomMessageInput, UserMessageContent } from "../content.js";
import type {
  ExtensionHost,
  SendMessageOptions,
  SendUserMessageOptions,
} from "../extension-api.js";

/** One call an extension made through the host, in call order. */
export type HostCall =
  | { method: "sendMessage"; message: CustomMessageInput; options: SendMessageOptions }
  | { method: "sendUserMessage"; content: UserMessageContent; options: SendUserMessageOptions }
  | { method: "appendEntry"; customType: string; data: unknown }
  | { method: "setLabel"; entryId: string; label: string | undefined }
  | { method: "setTitle"; title: string };

/**
 * An {@link ExtensionHost} for tests, backed by a real in-memory session: it records every
 * call and stores what a turn runner would (custom messages, custom entries, user messages,
 * labels, the title), without delivering anything to a model.
 *
 * @example
 * ```ts
 * const host = await FakeExtensionHost.create();
 * runner.bindHost(host);
 * await runner.runCommand("bookmark", "before refactor");
 * expect(host.calls).toEqual([{ method: "setLabel", entryId, label: "before refactor" }]);
 * ```
 */
export class FakeExtensionHost implements ExtensionHost {
  /** Every call, in order. */
  readonly calls: HostCall[] = [];

  constructor(readonly backing: Session) {}

  /** Opens an empty in-memory session and wraps it. */
  static async create(options: SessionSeams & { cwd?: string } = {}): Promise<FakeExtensionHost> {
    const session = await Session.open(new MemorySessionStorage(), { ...options, create: true });
    return new FakeExtensionHost(session);
  }

  get session(): Session {
    return this.backing;
  }

  async sendMessage(message: CustomMessageInput, options: SendMessageOptions): Promise<void> {
    this.calls.push({ method: "sendMessage", message, options });
    const { customType, content, display, details } = message;
    await this.backing.appendCustomMessageEntry(customType, content, display, details);
  }

  async sendUserMessage(
    content: UserMessageContent,
    options: SendUserMessageOptions,
  ): Promise<void> {
    this.calls.push({ method: "sendUserMessage", content, options });
    await this.backing.appendMessage({ role: "user", content, timestamp: Date.now() });
  }

  appendEntry(customType: string, data: unknown): Promise<string> {
    this.calls.push({ method: "appendEntry", customType, data });
    return this.backing.appendCustomEntry(customType, data);
  }

  async setLabel(entryId: string, label: string | undefined): Promise<void> {
    this.calls.push({ method: "setLabel", entryId, label });
    await this.backing.appendLabelChange(entryId, label);
  }

  async setTitle(title: string): Promise<void> {
    this.calls.push({ method: "setTitle", title });
    await this.backing.setTitle(title);
  }
}
