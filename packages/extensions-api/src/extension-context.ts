import { z } from "zod";
import { checkInput } from "./check-input.js";
import { toolResultContentSchema } from "./content.js";
import { ExtensionApiError } from "./errors.js";
import type {
  ExtensionCommandContext,
  ExtensionContext,
  ReadonlySessionView,
  ToolProgressUpdate,
} from "./extension-api.js";
import { runAsHost } from "./extension-scope.js";
import type { ExtensionSessionActions } from "./session-actions.js";
import type { DeadlineHold, TimerSeam } from "./timeout.js";
import type { ExtensionUIProvider } from "./ui.js";
import { createExtensionUI, hasInteractiveUI } from "./ui-requests.js";

/** What the runner lends the context of one call. */
export interface ContextBindings {
  extensionName: string;
  cwd: string;
  session(): ReadonlySessionView;
  ui(): ExtensionUIProvider | undefined;
  actions(): ExtensionSessionActions | undefined;
  uiTimeoutMs: number;
  timers: TimerSeam;
  nextUIRequestId(): string;
  /** Aborted when the session shuts down: UI requests are withdrawn. */
  lifetime: AbortSignal;
}

/** What one call adds to its context. */
export interface CallScope {
  signal: AbortSignal | undefined;
  /** Pauses the call's deadline while the extension waits for the user. */
  hold?: DeadlineHold;
}

/** Builds the context every handler, tool and command receives. */
export function createExtensionContext(
  bindings: ContextBindings,
  scope: CallScope,
): ExtensionContext {
  const ui = createExtensionUI({
    extensionName: bindings.extensionName,
    provider: bindings.ui,
    timeoutMs: bindings.uiTimeoutMs,
    timers: bindings.timers,
    nextId: bindings.nextUIRequestId,
    signals: [scope.signal, bindings.lifetime],
  });
  const held = <T>(promise: Promise<T>): Promise<T> => {
    const end = scope.hold?.begin();
    return end ? promise.finally(end) : promise;
  };
  const actions = bindings.actions;
  return {
    extensionName: bindings.extensionName,
    cwd: bindings.cwd,
    get session() {
      return bindings.session();
    },
    signal: scope.signal,
    get hasUI() {
      return hasInteractiveUI(bindings.ui());
    },
    ui: {
      select: (...args) => held(ui.select(...args)),
      confirm: (...args) => held(ui.confirm(...args)),
      input: (...args) => held(ui.input(...args)),
      notify: (...args) => ui.notify(...args),
      custom: (...args) => held(ui.custom(...args)),
    },
    get model() {
      return structuredClone(actions()?.model());
    },
    get models() {
      return structuredClone(actions()?.models() ?? []);
    },
    getContextUsage: () => structuredClone(actions()?.getContextUsage()),
    compact: async (instructions) => {
      const checked = checkInput(z.string().optional(), instructions, "compact: the instructions");
      return runAsHost(() => requireActions(actions, "compact").compact(checked));
    },
    isIdle: () => actions()?.isIdle() ?? true,
    abort: () => {
      const bound = actions();
      if (bound) runAsHost(() => bound.abort());
    },
  };
}

/** Adds the actions only a command may take. */
export function createCommandContext(
  base: ExtensionContext,
  actions: () => ExtensionSessionActions | undefined,
): ExtensionCommandContext {
  const context = Object.create(base) as ExtensionCommandContext;
  return Object.assign(context, {
    waitForIdle: async () => runAsHost(() => requireActions(actions, "waitForIdle").waitForIdle()),
    newSession: async () => runAsHost(() => requireActions(actions, "newSession").newSession()),
    fork: async (entryId: string) => {
      checkInput(z.string().min(1), entryId, "fork: the entry id");
      return runAsHost(() => requireActions(actions, "fork").fork(entryId));
    },
    navigateTree: async (targetId: string | null, options: { summarize?: boolean } = {}) => {
      checkInput(z.string().min(1).nullable(), targetId, "navigateTree: the target id");
      const checked = checkInput(navigateOptionsSchema, options, "navigateTree: the options");
      return runAsHost(() =>
        requireActions(actions, "navigateTree").navigateTree(targetId, checked),
      );
    },
  });
}

/** Adds `toolCallId` and `onUpdate` to a tool's context. */
export function createToolContext(
  base: ExtensionContext,
  toolCallId: string,
  onUpdate: (update: ToolProgressUpdate) => void,
): ExtensionContext & { toolCallId: string; onUpdate(update: ToolProgressUpdate): void } {
  const context = Object.create(base);
  return Object.assign(context, {
    toolCallId,
    onUpdate: (update: ToolProgressUpdate) =>
      onUpdate(checkInput(toolProgressUpdateSchema, update, "onUpdate: the update")),
  });
}

/** What a tool may report as progress. */
export const toolProgressUpdateSchema = z.strictObject({
  content: z.union([z.string(), z.array(toolResultContentSchema)]).optional(),
  details: z.unknown().optional(),
});

const navigateOptionsSchema = z.strictObject({ summarize: z.boolean().optional() });

function requireActions(
  actions: () => ExtensionSessionActions | undefined,
  what: string,
): ExtensionSessionActions {
  const bound = actions();
  if (!bound)
    throw new ExtensionApiError(
      "action_unavailable",
      `${what}() is not available: the app runs extensions without session actions (run the agent through AgentHost)`,
    );
  return bound;
}
