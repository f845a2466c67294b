import { z } from "zod";
import { type ToolResultContent, toolExecuteResultSchema } from "./content.js";
import { describeError } from "./errors.js";
import type { ExtensionErrorEvent } from "./events.js";
import type {
  ExtensionCommandContext,
  ExtensionCommandDefinition,
  ExtensionContext,
  ExtensionToolDefinition,
  ToolExecutionContext,
} from "./extension-api.js";
import { createToolContext } from "./extension-context.js";
import { validateCommand, validateTool } from "./registration.js";
import type {
  CommandEntry,
  ExtensionRecord,
  RegisteredCommand,
  RegisteredTool,
  ToolEntry,
} from "./registry.js";
import type { GuardedCall } from "./timeout.js";

/** Options of {@link ExtensionRunner.executeTool}. */
export interface ToolExecutionOptions {
  toolCallId: string;
  signal?: AbortSignal;
  /** Receives the tool's progress reports while it runs (the runner's `onToolUpdate` listeners do too). */
  onUpdate?: (update: ToolUpdateEvent) => void;
}

/** A progress report of a running tool, as the app receives it. */
export interface ToolUpdateEvent {
  toolCallId: string;
  toolName: string;
  extensionName: string;
  /** What the tool has so far, as blocks. */
  content: ToolResultContent[];
  details?: unknown;
}

/** A tool's result as the model receives it. */
export interface ToolExecutionResult {
  content: ToolResultContent[];
  isError: boolean;
  details?: unknown;
}

/** How {@link ExtensionRunner.runCommand} went. */
export type CommandOutcome =
  /** `prompt`: text the command returned, for the app to send as the next prompt. */
  | { status: "done"; prompt?: string }
  | { status: "unknown_command" }
  | { status: "failed"; error: string };

/** What the registry needs from the runner. */
export interface CapabilityRegistryBindings {
  report(
    record: ExtensionRecord,
    event: ExtensionErrorEvent["event"],
    kind: ExtensionErrorEvent["kind"],
    error: string,
  ): void;
  context(record: ExtensionRecord, signal: AbortSignal | undefined): ExtensionContext;
  commandContext(record: ExtensionRecord, signal: AbortSignal | undefined): ExtensionCommandContext;
  /** Passes a tool's progress to the runner's listeners. */
  toolUpdate(update: ToolUpdateEvent): void;
  /** Calls the extension's code as the extension, without a timeout. */
  call<T>(
    record: ExtensionRecord,
    origin: ExtensionErrorEvent["event"],
    what: string,
    run: () => T | PromiseLike<T>,
  ): Promise<GuardedCall<Awaited<T>>>;
}

/**
 * The tools and commands extensions registered: validation, first-wins collisions, and
 * isolated execution. Internal to the runner.
 */
export class CapabilityRegistry {
  private readonly tools = new Map<string, ToolEntry>();
  private readonly commands = new Map<string, CommandEntry>();

  constructor(private readonly bindings: CapabilityRegistryBindings) {}

  listTools(): RegisteredTool[] {
    return [...this.tools.values()].map(({ definition: _d, record: _r, ...tool }) => tool);
  }

  listCommands(): RegisteredCommand[] {
    return [...this.commands.values()].map(({ definition: _d, record: _r, ...command }) => command);
  }

  /** The names of the tools and commands an extension owns. */
  ownedBy(record: ExtensionRecord): { tools: string[]; commands: string[] } {
    const owned = (entries: Iterable<{ name: string; record: ExtensionRecord }>) =>
      [...entries].filter((entry) => entry.record === record).map((entry) => entry.name);
    return { tools: owned(this.tools.values()), commands: owned(this.commands.values()) };
  }

  addTool(record: ExtensionRecord, definition: ExtensionToolDefinition): void {
    const checked = validateTool(definition);
    if (!checked.ok) {
      this.bindings.report(record, "tool", "invalid_registration", checked.error);
      return;
    }
    const existing = this.tools.get(definition.name);
    if (existing) {
      this.bindings.report(
        record,
        "tool",
        "collision",
        `tool ${definition.name} is already registered by ${existing.extensionName}; this one is ignored`,
      );
      return;
    }
    this.tools.set(definition.name, {
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
      jsonSchema: checked.jsonSchema,
      extensionName: record.name,
      extensionPath: record.path,
      definition,
      record,
    });
  }

  addCommand(
    record: ExtensionRecord,
    rawName: string,
    definition: ExtensionCommandDefinition,
  ): void {
    const checked = validateCommand(rawName, definition);
    if (!checked.ok) {
      this.bindings.report(record, "command", "invalid_registration", checked.error);
      return;
    }
    const existing = this.commands.get(checked.name);
    if (existing) {
      this.bindings.report(
        record,
        "command",
        "collision",
        `command /${checked.name} is already registered by ${existing.extensionName}; this one is ignored`,
      );
      return;
    }
    this.commands.set(checked.name, {
      name: checked.name,
      description: definition.description,
      extensionName: record.name,
      extensionPath: record.path,
      definition,
      record,
    });
  }

  async executeTool(
    name: string,
    args: unknown,
    options: ToolExecutionOptions,
  ): Promise<ToolExecutionResult> {
    const tool = this.tools.get(name);
    if (!tool) return errorResult(`unknown tool ${name}`);
    if (tool.record.state !== "active")
      return errorResult(
        `tool ${name} is unavailable: extension ${tool.extensionName} was disabled`,
      );
    const parsedArgs = tool.parameters.safeParse(args);
    if (!parsedArgs.success)
      return errorResult(`invalid arguments for ${name}: ${z.prettifyError(parsedArgs.error)}`);
    let running = true;
    const ctx = createToolContext(
      this.bindings.context(tool.record, options.signal),
      options.toolCallId,
      (update) => {
        if (!running) return;
        const event: ToolUpdateEvent = {
          toolCallId: options.toolCallId,
          toolName: name,
          extensionName: tool.extensionName,
          content:
            typeof update.content === "string"
              ? [{ type: "text", text: update.content }]
              : (update.content ?? []),
          ...(update.details === undefined ? {} : { details: update.details }),
        };
        try {
          options.onUpdate?.(event);
        } catch {
          // The app's listener failing is not the tool's failure.
        }
        this.bindings.toolUpdate(event);
      },
    );
    const call = await this.bindings.call(tool.record, "tool", `tool ${name}`, () =>
      tool.definition.execute(parsedArgs.data, ctx as ToolExecutionContext),
    );
    running = false;
    if (call.status === "error") return errorResult(describeError(call.error));
    const returned: unknown = call.status === "ok" ? call.value : undefined;
    const parsed = toolExecuteResultSchema.safeParse(returned);
    if (!parsed.success) {
      const why = `tool ${name} returned an invalid result: ${z.prettifyError(parsed.error)}`;
      this.bindings.report(tool.record, "tool", "invalid_return", why);
      return errorResult(why);
    }
    const { content, details, isError } = parsed.data;
    return {
      content: typeof content === "string" ? [{ type: "text", text: content }] : content,
      isError: isError ?? false,
      ...(details === undefined ? {} : { details }),
    };
  }

  async runCommand(
    name: string,
    args: string,
    options: { signal?: AbortSignal },
  ): Promise<CommandOutcome> {
    const command = this.commands.get(name.replace(/^\//, ""));
    if (!command) return { status: "unknown_command" };
    if (command.record.state !== "active")
      return {
        status: "failed",
        error: `command /${command.name} is unavailable: extension ${command.extensionName} was disabled`,
      };
    const ctx = this.bindings.commandContext(command.record, options.signal);
    const call = await this.bindings.call(
      command.record,
      "command",
      `command /${command.name}`,
      () => command.definition.handler(args.trim(), ctx),
    );
    if (call.status === "ok") {
      const returned: unknown = call.value;
      if (typeof returned === "string" && returned.trim() !== "")
        return { status: "done", prompt: returned };
      if (returned !== undefined && returned !== null && typeof returned !== "string")
        this.bindings.report(
          command.record,
          "command",
          "invalid_return",
          `command /${command.name} returned a ${typeof returned}; a command returns nothing or the text of the next prompt`,
        );
      return { status: "done" };
    }
    if (call.status !== "error") return { status: "done" };
    const message = `command /${command.name} threw: ${describeError(call.error)}`;
    this.bindings.report(command.record, "command", "threw", message);
    return { status: "failed", error: message };
  }
}

function errorResult(text: string): ToolExecutionResult {
  return { content: [{ type: "text", text }], isError: true };
}
