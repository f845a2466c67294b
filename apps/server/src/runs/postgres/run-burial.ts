import {
  type AgentDefinition,
  type AgentHostOptions,
  type AgentNode,
  definitionOf,
} from "@arbor/orchestration";
import { type AgentMessage, SessionLockedError, type SessionStore } from "@arbor/session-store";
import type { RunRecord } from "../run-record.js";
import type { ServerRunEvent } from "../server-run-event.js";
import type { ClusterDb } from "./cluster-db.js";
import { interruptedAnswer } from "./interrupted-answer.js";
import type { PostgresRunEventLog } from "./postgres-run-event-log.js";
import type { ClaimedRun, RunLedger } from "./run-ledger.js";

/** What ending a dead instance's run works with. */
export interface BurialDeps {
  db: ClusterDb;
  store: SessionStore;
  log: PostgresRunEventLog;
  ledger: RunLedger;
  agents: ReadonlyMap<string, AgentDefinition | AgentNode>;
  models: AgentHostOptions["models"];
  report?: ((error: unknown) => void) | undefined;
}

/**
 * Ends a run whose instance died, after this instance took it over: the answer it was
 * streaming goes to the session as an aborted message (what its clients already saw), then
 * the run is marked interrupted. Meanwhile the run still holds its session, so no new run
 * slips in between.
 */
export async function buryRun(deps: BurialDeps, { record, generation }: ClaimedRun): Promise<void> {
  try {
    const events: ServerRunEvent[] = [];
    for (;;) {
      const page = await deps.log.readEvents(record.id, events.at(-1)?.seq ?? 0, 1000);
      events.push(...page);
      if (page.length < 1000) break;
    }
    const message = interruptedAnswer(
      events,
      agentDefinition(deps.agents.get(record.agent)),
      deps.models,
      Date.now(),
    );
    if (message) await appendToSession(deps, record, message);
  } catch (error) {
    // The partial answer is a courtesy; the run must end whatever happens to it.
    deps.report?.(error);
  }
  await deps.ledger.interrupt(record.id, generation);
}

/** Appends a message to a run's session, waiting (bounded) for a dead writer's lease. */
async function appendToSession(
  deps: BurialDeps,
  record: RunRecord,
  message: AgentMessage,
): Promise<void> {
  const until = Date.now() + deps.db.leaseTtlMs * 2;
  for (;;) {
    try {
      const session = await deps.store.open(record.sessionId, { tenant: record.tenantId });
      try {
        await session.appendMessage(message);
      } finally {
        await session.close();
      }
      return;
    } catch (error) {
      if (!SessionLockedError.isInstance(error) || Date.now() >= until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function agentDefinition(
  agent: AgentDefinition | AgentNode | undefined,
): AgentDefinition | undefined {
  return agent === undefined ? undefined : definitionOf(agent);
}
