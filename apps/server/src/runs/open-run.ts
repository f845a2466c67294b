import { randomUUID } from "node:crypto";
import {
  type AgentDefinition,
  AgentHost,
  type AgentHostOptions,
  type AgentNode,
} from "@arbor/orchestration";
import { SessionLockedError, type SessionStore } from "@arbor/session-store";
import type { RunExtensions } from "../extensions/run-extensions.js";
import type { ServerExtensions } from "../extensions/server-extensions.js";
import type { StartRunRequest } from "./run-request.js";

/** What opening a run's agent works with. */
export interface OpenRunDeps {
  store: SessionStore;
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  models: AgentHostOptions["models"];
  extensions?: ServerExtensions | undefined;
  /** How long opening is retried while another writer holds the session (0: no retry). */
  openRetryMs?: number | undefined;
}

/** A run's agent, opened: its host and the extensions loaded for it. */
export interface OpenedRun {
  host: AgentHost;
  extensions: RunExtensions | undefined;
}

/**
 * Opens a run's agent: its extensions, then its host on the session. The one place that
 * knows how a run becomes an {@link AgentHost}.
 * @throws what loading the extensions or opening the session threw (nothing is left open)
 */
export async function openRun(
  deps: OpenRunDeps,
  runId: string,
  request: StartRunRequest,
): Promise<OpenedRun> {
  const agent = deps.agents.get(request.agent) as AgentDefinition | AgentNode;
  const extensions = await deps.extensions?.openRun(runId, request.agent);
  try {
    const host = await openRetrying(deps.openRetryMs ?? 0, () =>
      AgentHost.open({
        store: deps.store,
        sessionId: request.sessionId,
        tenant: request.tenantId,
        agent,
        models: deps.models,
        // The root's run is the server's run; a tree's children draw ids of their own.
        agentOptions: {
          generateRunId: runIdsFrom(runId),
          ...(request.ancestry ? { ancestry: request.ancestry } : {}),
        },
        ...extensions?.hostOptions,
      }),
    );
    if (request.fromEntry !== undefined) {
      try {
        await host.navigate(request.fromEntry);
      } catch (error) {
        await host.close().catch(() => undefined);
        throw error;
      }
    }
    return { host, extensions };
  } catch (error) {
    if (extensions) deps.extensions?.closeRun(runId);
    throw error;
  }
}

/** Closes a run's host and its extensions; never throws. */
export async function closeRun(
  opened: OpenedRun,
  extensions: ServerExtensions | undefined,
  runId: string,
): Promise<void> {
  await opened.host.close().catch(() => undefined);
  if (opened.extensions) extensions?.closeRun(runId);
}

/** Opens a host, retrying for `retryMs` while another writer holds the session. */
async function openRetrying(retryMs: number, open: () => Promise<AgentHost>): Promise<AgentHost> {
  const until = Date.now() + retryMs;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      if (!SessionLockedError.isInstance(error) || Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Run ids for a host: `first` for its first run, random UUIDs after. */
function runIdsFrom(first: string): () => string {
  let next: string | undefined = first;
  return () => {
    const id = next ?? randomUUID();
    next = undefined;
    return id;
  };
}
