import type { SessionSnapshot, SessionSnapshotEntry } from "../src/session-snapshot.js";

let clock = Date.parse("2026-03-01T10:00:00.000Z");
function tick(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

/** A session entry with a rising timestamp. */
export function entry(
  id: string,
  parentId: string | null,
  type: string,
  extra: Record<string, unknown> = {},
): SessionSnapshotEntry {
  return { type, id, parentId, timestamp: tick(), ...extra };
}

/** A user or assistant message entry. */
export function say(
  id: string,
  parentId: string | null,
  role: "user" | "assistant",
  text: string,
): SessionSnapshotEntry {
  return entry(id, parentId, "message", {
    message: { role, content: [{ type: "text", text }], timestamp: 0 },
  });
}

/** A child-session record as orchestration writes it. */
export function childRecord(
  id: string,
  parentId: string | null,
  childSessionId: string,
  outcome = "succeeded",
  extra: Record<string, unknown> = {},
): SessionSnapshotEntry {
  return entry(id, parentId, "custom", {
    customType: "arbor.orchestration.child",
    data: {
      childSessionId,
      role: "subagent",
      agent: "researcher",
      agentPath: "main:researcher",
      outcome,
      ...(outcome === "running"
        ? {}
        : {
            usage: { input: 1200, output: 300, cacheRead: 0, cacheWrite: 0, totalTokens: 1500 },
            cost: 0.0123,
          }),
      ...extra,
    },
  });
}

/** An ancestry record, a child session's first entry. */
export function ancestryRecord(id: string, parentSessionId: string): SessionSnapshotEntry {
  return entry(id, null, "custom", {
    customType: "arbor.orchestration.ancestry",
    data: {
      originId: "root-session",
      parentId: parentSessionId,
      agentPath: "main:researcher",
      role: "subagent",
      agent: "researcher",
      file: "<inline>",
      originRunId: "r0",
      runId: "r1",
      parentRunId: "r0",
    },
  });
}

/** A session whose entries start a child run (`running`, then the outcome). */
export function parentSession(id: string, childIds: string[]): SessionSnapshot {
  const entries: SessionSnapshotEntry[] = [say(`${id}-u`, null, "user", `Task of ${id}`)];
  let last = `${id}-u`;
  childIds.forEach((childId, n) => {
    entries.push(childRecord(`${id}-c${n}r`, last, childId, "running"));
    entries.push(childRecord(`${id}-c${n}`, `${id}-c${n}r`, childId));
    last = `${id}-c${n}`;
  });
  entries.push(say(`${id}-a`, last, "assistant", `Answer of ${id}`));
  return { header: { id, timestamp: "2026-03-01T10:00:00.000Z" }, entries, leafId: `${id}-a` };
}

/** A child session: ancestry, a prompt, an answer, and the children it starts. */
export function childSession(
  id: string,
  parentSessionId: string,
  childIds: string[] = [],
  extraMessages = 0,
): SessionSnapshot {
  const entries: SessionSnapshotEntry[] = [
    ancestryRecord("e0", parentSessionId),
    say("e1", "e0", "user", `Subtask for ${id}`),
  ];
  let last = "e1";
  childIds.forEach((childId, n) => {
    entries.push(childRecord(`k${n}`, last, childId));
    last = `k${n}`;
  });
  for (let n = 0; n < extraMessages; n++) {
    entries.push(say(`x${n}`, last, n % 2 ? "user" : "assistant", `message ${n} of ${id}`));
    last = `x${n}`;
  }
  entries.push(say("e2", last, "assistant", `Result of ${id}`));
  return { header: { id, timestamp: "2026-03-01T10:00:00.000Z" }, entries, leafId: "e2" };
}
