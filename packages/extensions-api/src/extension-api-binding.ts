import { resolve } from "node:path";
import { z } from "zod";
import { checkInput } from "./check-input.js";
import { customMessageInputSchema, userMessageContentSchema } from "./content.js";
import { ExtensionApiError } from "./errors.js";
import type { ExtensionEventName } from "./events.js";
import { execCommand } from "./exec.js";
import type {
  ExtensionAPI,
  ExtensionCommandDefinition,
  ExtensionHandler,
  ExtensionHost,
  ExtensionToolDefinition,
  ReadonlySessionView,
} from "./extension-api.js";
import { runAsHost } from "./extension-scope.js";
import type { FinalMetaDefinition } from "./final-meta.js";
import type { MessageRenderer } from "./message-renderer.js";
import type { ExtensionRecord } from "./registry.js";

/** What the runner lends an extension's API object. */
export interface ApiBindings {
  cwd: string;
  /** The bound host; throws `host_unavailable` when there is none. */
  host(): ExtensionHost;
  /** A copying view of the host's session; throws like `host`. */
  session(): ReadonlySessionView;
  addTool(tool: ExtensionToolDefinition): void;
  addCommand(name: string, command: ExtensionCommandDefinition): void;
  addFinalMeta(definition: FinalMetaDefinition): void;
  addRenderer(customType: string, renderer: MessageRenderer): void;
  /** Whether the session has shut down (a host was bound, then removed). */
  isShutDown(): boolean;
  /** Aborted when the session shuts down: programs `exec` started are stopped with it. */
  lifetimeSignal(): AbortSignal;
}

/**
 * Builds the {@link ExtensionAPI} one extension's factory receives. Arguments are checked
 * here, so a malformed call rejects in the extension that made it and never reaches the
 * host. Tools and commands registered while the factory runs wait until it succeeds.
 */
export function createExtensionApi(record: ExtensionRecord, bindings: ApiBindings): ExtensionAPI {
  const { cwd } = bindings;
  // Work the host does for an extension runs outside the extension's scope, so a failure
  // there is the host's, not attributed to (and swallowed as) the extension's.
  const host = () => {
    const bound = bindings.host();
    return new Proxy(bound, {
      get: (target, key) => {
        const value = Reflect.get(target, key);
        return typeof value === "function"
          ? (...args: unknown[]) => runAsHost(() => value.apply(target, args))
          : value;
      },
    });
  };
  const refuseAfterShutdown = (what: string) => {
    if (bindings.isShutDown())
      throw new ExtensionApiError(
        "host_unavailable",
        `${what} is refused: the session has shut down`,
      );
  };
  return {
    extensionName: record.name,
    cwd,
    get session() {
      return bindings.session();
    },
    on<K extends ExtensionEventName>(event: K, handler: ExtensionHandler<K>) {
      if (typeof handler !== "function")
        throw new ExtensionApiError("invalid_input", `the handler for ${event} is not a function`);
      const list = record.handlers.get(event) ?? [];
      list.push(handler as unknown as ExtensionHandler<ExtensionEventName>);
      record.handlers.set(event, list);
    },
    sendMessage: async (message, options = {}) => {
      const checked = checkInput(customMessageInputSchema, message, "sendMessage: the message");
      const delivery = checkInput(sendMessageOptionsSchema, options, "sendMessage: the options");
      await host().sendMessage(checked, delivery);
    },
    sendUserMessage: async (content, options = {}) => {
      const checked = checkInput(userMessageContentSchema, content, "sendUserMessage: the content");
      const delivery = checkInput(
        sendUserMessageOptionsSchema,
        options,
        "sendUserMessage: the options",
      );
      await host().sendUserMessage(checked, delivery);
    },
    appendEntry: async (customType, data) => {
      checkInput(nonEmpty, customType, "appendEntry: the customType");
      return host().appendEntry(customType, data);
    },
    registerTool: (tool) => {
      refuseAfterShutdown("registerTool");
      const definition = tool as unknown as ExtensionToolDefinition;
      if (record.state === "loading") record.pendingTools.push(definition);
      else if (record.state === "active") bindings.addTool(definition);
    },
    registerCommand: (name, command) => {
      refuseAfterShutdown("registerCommand");
      if (record.state === "loading") record.pendingCommands.push({ name, command });
      else if (record.state === "active") bindings.addCommand(name, command);
    },
    requireFinalMeta: (definition) => {
      refuseAfterShutdown("requireFinalMeta");
      const checked = definition as unknown as FinalMetaDefinition;
      if (record.state === "loading") record.pendingFinalMeta.push(checked);
      else if (record.state === "active") bindings.addFinalMeta(checked);
    },
    registerMessageRenderer: (customType, renderer) => {
      refuseAfterShutdown("registerMessageRenderer");
      checkInput(nonEmpty, customType, "registerMessageRenderer: the customType");
      if (typeof renderer !== "function")
        throw new ExtensionApiError(
          "invalid_input",
          `registerMessageRenderer: the renderer of ${customType} is not a function`,
        );
      if (record.state === "loading") record.pendingRenderers.push({ customType, renderer });
      else if (record.state === "active") bindings.addRenderer(customType, renderer);
    },
    setLabel: async (entryId, label) => {
      checkInput(nonEmpty, entryId, "setLabel: the entry id");
      checkInput(z.string().optional(), label, "setLabel: the label");
      await host().setLabel(entryId, label);
    },
    setTitle: async (title) => {
      checkInput(z.string().trim().min(1), title, "setTitle: the title");
      await host().setTitle(title);
    },
    exec: async (command, args = [], options = {}) => {
      refuseAfterShutdown("exec");
      const lifetime = bindings.lifetimeSignal();
      const signal = options.signal ? AbortSignal.any([options.signal, lifetime]) : lifetime;
      return execCommand(command, args, {
        ...options,
        signal,
        cwd: resolve(cwd, options.cwd ?? "."),
      });
    },
  };
}

const nonEmpty = z.string().min(1);
const sendMessageOptionsSchema = z.strictObject({
  triggerTurn: z.boolean().optional(),
  deliverAs: z.enum(["steer", "followUp", "nextTurn"]).optional(),
});
const sendUserMessageOptionsSchema = z.strictObject({
  deliverAs: z.enum(["steer", "followUp"]).optional(),
});
