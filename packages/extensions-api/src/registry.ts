import type { z } from "zod";
import type { ExtensionOrigin } from "./discovery.js";
import type { ExtensionEventName } from "./events.js";
import type {
  ExtensionCommandDefinition,
  ExtensionHandler,
  ExtensionToolDefinition,
} from "./extension-api.js";
import type { ExtensionOwner } from "./extension-scope.js";
import type { FinalMetaDefinition } from "./final-meta.js";
import type { MessageRenderer } from "./message-renderer.js";

/** A tool an extension registered, as the turn runner offers it to the model. */
export interface RegisteredTool {
  name: string;
  description: string;
  /** The zod schema arguments are validated with. */
  parameters: z.ZodObject;
  /** The JSON schema of the arguments (zod's `toJSONSchema`, input side, no `$schema`). */
  jsonSchema: Record<string, unknown>;
  extensionName: string;
  extensionPath: string;
}

/** A command an extension registered. */
export interface RegisteredCommand {
  /** Without the leading slash. */
  name: string;
  description: string;
  extensionName: string;
  extensionPath: string;
}

/** A loaded extension, as the runner reports it. */
export interface LoadedExtension {
  name: string;
  path: string;
  origin: ExtensionOrigin;
  /** The events it subscribed to, in first-subscription order. */
  events: ExtensionEventName[];
  tools: string[];
  commands: string[];
}

/** An extension's registrations; internal to the runner. */
export interface ExtensionRecord {
  name: string;
  path: string;
  origin: ExtensionOrigin;
  /**
   * `loading` until the factory finishes; tools and commands wait for `active`. `failed`
   * when loading failed or the extension was disabled (its worker was stopped).
   */
  state: "loading" | "active" | "failed";
  /** Attributes the extension's code and reports its failures. */
  owner: ExtensionOwner;
  /** Whether the extension enforces its own deadline (a worker), so the runner adds none. */
  selfTimed?: boolean;
  handlers: Map<ExtensionEventName, ExtensionHandler<ExtensionEventName>[]>;
  pendingTools: ExtensionToolDefinition[];
  pendingCommands: Array<{ name: string; command: ExtensionCommandDefinition }>;
  /** `requireFinalMeta` calls made while the factory runs; they wait for `active` too. */
  pendingFinalMeta: FinalMetaDefinition[];
  /** `registerMessageRenderer` calls made while the factory runs. */
  pendingRenderers: Array<{ customType: string; renderer: MessageRenderer }>;
}

/** A tool with what the runner needs to execute it. */
export interface ToolEntry extends RegisteredTool {
  definition: ExtensionToolDefinition;
  record: ExtensionRecord;
}

/** A command with what the runner needs to run it. */
export interface CommandEntry extends RegisteredCommand {
  definition: ExtensionCommandDefinition;
  record: ExtensionRecord;
}
