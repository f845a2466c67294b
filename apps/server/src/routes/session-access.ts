import { type AgentDefinition, AgentHost, type AgentNode } from "@arbor/orchestration";
import type { Session } from "@arbor/session-store";
import type { AppDeps } from "../app-deps.js";
import { ApiError, runInProgress } from "../errors/index.js";

/** Runs `use` on the tenant's session opened read-only, and closes it. */
export async function readSession<T>(
  deps: AppDeps,
  tenantId: string,
  id: string,
  use: (session: Session) => T | Promise<T>,
): Promise<T> {
  const session = await deps.store.open(id, { readOnly: true, tenant: tenantId });
  try {
    return await use(session);
  } finally {
    await session.close();
  }
}

/** 409 naming the run when the tenant's session has one executing. */
export async function assertIdle(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const runId = await deps.runs.activeRunOf(id, tenantId);
  if (runId !== undefined) {
    throw runInProgress(id, runId, "change");
  }
}

/** Runs `use` on the tenant's session opened for writing (409 while a run holds it), and closes it. */
export async function writeSession<T>(
  deps: AppDeps,
  tenantId: string,
  id: string,
  use: (session: Session) => T | Promise<T>,
): Promise<T> {
  // Opening read-only first: another tenant's session is a 404, never a 409.
  await readSession(deps, tenantId, id, () => undefined);
  await assertIdle(deps, tenantId, id);
  const session = await deps.store.open(id, { tenant: tenantId });
  try {
    return await use(session);
  } finally {
    await session.close();
  }
}

/** The named agent, or the first configured one. */
export function agentNamed(deps: AppDeps, name: string | undefined): AgentDefinition | AgentNode {
  const definition = name === undefined ? deps.agents.values().next().value : deps.agents.get(name);
  if (!definition) {
    throw new ApiError(
      404,
      "agent_not_found",
      name === undefined ? "the server has no agent configured" : `no agent "${name}"`,
    );
  }
  return definition;
}

/**
 * Runs `use` on an agent host over the tenant's session (for navigate and compact), holding
 * the session so no run starts meanwhile, and closes it.
 * @param what - the change, named in the 409 others get (`navigate`, `compact`)
 */
export async function withHost<T>(
  deps: AppDeps,
  tenantId: string,
  id: string,
  agent: string | undefined,
  what: string,
  use: (host: AgentHost) => Promise<T>,
): Promise<T> {
  const definition = agentNamed(deps, agent);
  await readSession(deps, tenantId, id, () => undefined);
  return deps.runs.holding(id, tenantId, what, async () => {
    const host = await AgentHost.open({
      store: deps.store,
      sessionId: id,
      tenant: tenantId,
      agent: definition,
      models: deps.models,
    });
    try {
      return await use(host);
    } finally {
      await host.close();
    }
  });
}
