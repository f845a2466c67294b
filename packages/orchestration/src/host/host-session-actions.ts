import type {
  ExtensionCompactResult,
  ExtensionModelInfo,
  ExtensionSessionActions,
} from "@arbor/extensions-api";
import type { Model } from "@arbor/providers";
import type { Session } from "@arbor/session-store";
import type { AgentCompactionOutcome, TreeNavigation } from "@arbor/turn-runner";
import type { AgentHostState } from "./host-state.js";

/** What the session actions need of the host: its own methods, nothing kept twice. */
export interface ActionableHost {
  state(): AgentHostState;
  /** The models the definition's targets name (those that can be built). */
  catalogue(): Model[];
  abort(): void;
  waitForIdle(): Promise<void>;
  compact(instructions?: string): Promise<AgentCompactionOutcome>;
  newSession(): Promise<Session>;
  fork(entryId?: string): Promise<Session>;
  navigate(entryId: string | null, options: { summarize?: boolean }): Promise<TreeNavigation>;
}

/**
 * The {@link ExtensionSessionActions} of an agent host: each one is a call of the host's
 * own method (`compact`, `switchSession`, `fork`, `navigate`, `abort`), so extensions steer
 * the session exactly as the app does, with the same busy checks and lifecycle events.
 */
export function hostSessionActions(host: ActionableHost): ExtensionSessionActions {
  return {
    model: () => {
      const { model } = host.state();
      return { provider: model.provider, id: model.id, contextWindow: model.contextWindow };
    },
    models: () => {
      const seen = new Set<string>();
      const current = host.state().model;
      const infos: ExtensionModelInfo[] = [];
      const add = (info: ExtensionModelInfo) => {
        const key = `${info.provider}/${info.id}`;
        if (seen.has(key)) return;
        seen.add(key);
        infos.push(info);
      };
      add({ provider: current.provider, id: current.id, contextWindow: current.contextWindow });
      for (const model of host.catalogue()) {
        const { provider, id, contextWindow } = model.info;
        add({ provider, id, contextWindow });
      }
      return infos;
    },
    getContextUsage: () => {
      const { contextTokens, model } = host.state();
      const window = model.contextWindow;
      return {
        tokens: contextTokens,
        contextWindow: window,
        percent: window > 0 ? Math.round((contextTokens / window) * 10_000) / 100 : 0,
      };
    },
    compact: async (instructions) => compactResult(await host.compact(instructions)),
    isIdle: () => host.state().busy === undefined,
    abort: () => host.abort(),
    waitForIdle: () => host.waitForIdle(),
    newSession: async () => ({ sessionId: (await host.newSession()).id }),
    fork: async (entryId) => ({ sessionId: (await host.fork(entryId)).id }),
    navigateTree: async (targetId, options) => {
      const moved = await host.navigate(targetId, options);
      // The agent reports a cancelled move as one that left the leaf where it was.
      const cancelled = moved.newLeafId !== targetId && moved.summaryEntryId === undefined;
      return { cancelled };
    },
  };
}

function compactResult(outcome: AgentCompactionOutcome): ExtensionCompactResult {
  if (outcome.status === "failed") {
    const error = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    return { status: "failed", error };
  }
  return { status: outcome.status };
}
