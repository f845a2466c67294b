import { type ArborEntryType, arborEntrySchemas } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { childRecord, entry, say } from "../test/orchestration-sessions.js";
import { exportSessionToHtml } from "./export-html.js";
import { exportSessionTreeToHtml } from "./orchestration/load-children.js";
import type { SessionSnapshot, SessionSnapshotEntry } from "./session-snapshot.js";

const megabyte = "x".repeat(1024 * 1024);

/** Payloads no Arbor writer writes: what a damaged or hostile file may hold. */
const malformedPayloads: unknown[] = [
  null,
  [],
  [{ childSessionId: "c" }],
  "a string",
  42,
  { childSessionId: 7, parentId: ["P"], text: { toString: null }, rules: "no-any" },
  { childSessionId: megabyte, parentId: megabyte, text: megabyte, file: megabyte },
  { rules: Array.from({ length: 5000 }, () => "r"), problems: [null], directory: "" },
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}'),
];

/** Every Arbor custom type with every malformed payload, as both entry types, in a chain. */
function malformedSession(id: string): SessionSnapshot {
  const entries: SessionSnapshotEntry[] = [say(`${id}-u`, null, "user", "Hello")];
  const types = Object.keys(arborEntrySchemas) as ArborEntryType[];
  for (const customType of types) {
    malformedPayloads.forEach((payload, n) => {
      const parentId = entries.at(-1)?.id ?? null;
      entries.push(
        entry(`${id}-${customType}-${n}`, parentId, arborEntrySchemas[customType].entryType, {
          customType,
          data: payload,
          details: payload,
          content: "note",
          display: true,
        }),
      );
    });
  }
  entries.push(say(`${id}-a`, entries.at(-1)?.id ?? null, "assistant", "Answer"));
  return { header: { id, timestamp: "2026-03-01T10:00:00.000Z" }, entries, leafId: `${id}-a` };
}

function pageData(html: string): {
  entries: SessionSnapshotEntry[];
  orchestration: { children: object; ancestry: object; systemPrompts: object };
} {
  const match = /<script type="application\/json" id="arbor-session">([\s\S]*?)<\/script>/.exec(
    html,
  );
  return JSON.parse(match?.[1] ?? "null");
}

describe("a session with malformed Arbor entries", () => {
  it("still exports: every entry kept, none read as an orchestration record", () => {
    const session = malformedSession("S");
    const html = exportSessionToHtml(session);
    const data = pageData(html);
    expect(data.entries.map((e) => e.id)).toEqual(session.entries.map((e) => e.id));
    expect(data.orchestration.children).toEqual({});
    expect(data.orchestration.ancestry).toEqual({});
    expect(data.orchestration.systemPrompts).toEqual({});
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("still exports as a tree when a child session is malformed too", async () => {
    const parent = malformedSession("P");
    parent.entries.push(childRecord("P-c", "P-a", "C"));
    const html = await exportSessionTreeToHtml(parent, {
      loadChild: (id) => (id === "C" ? malformedSession("C") : undefined),
    });
    const data = pageData(html);
    expect(Object.keys(data.orchestration.children)).toEqual(["P-c"]);
    expect(data.entries.some((e) => e.id.endsWith("C-a"))).toBe(true);
  });
});
