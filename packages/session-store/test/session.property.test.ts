import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MemorySessionStorage,
  Session,
  type SessionEntry,
  type SessionTreeNode,
} from "../src/index.js";

/** The operations a random session is built from. `pick` chooses an existing entry. */
type Op =
  | { kind: "user" | "assistant" | "custom_message" | "thinking" | "model"; text: string }
  | { kind: "branch" | "label" | "compaction"; pick: number; text: string }
  | { kind: "branch_summary"; pick: number | null; text: string }
  | { kind: "reset" };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constantFrom("user", "assistant") as fc.Arbitrary<"user" | "assistant">,
      text: fc.string(),
    }),
  },
  fc.record({
    kind: fc.constantFrom("custom_message", "thinking", "model") as fc.Arbitrary<
      "custom_message" | "thinking" | "model"
    >,
    text: fc.string({ minLength: 1 }),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("branch" as const),
      pick: fc.nat(),
      text: fc.string(),
    }),
  },
  fc.record({
    kind: fc.constantFrom("label", "compaction") as fc.Arbitrary<"label" | "compaction">,
    pick: fc.nat(),
    text: fc.string(),
  }),
  fc.record({
    kind: fc.constant("branch_summary" as const),
    pick: fc.option(fc.nat(), { nil: null }),
    text: fc.string(),
  }),
  fc.record({ kind: fc.constant("reset" as const) }),
);

// biome-ignore lint/suspicious/noExplicitAny: the reference reads entries without the schemas on purpose
type Loose = Record<string, any>;

/** A deliberately naive reference: entries in a list, paths by walking parents. */
function referenceContext(entries: SessionEntry[], leafId: string | null) {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const path: SessionEntry[] = [];
  for (let id = leafId; id !== null; ) {
    const entry = byId.get(id) as SessionEntry;
    path.unshift(entry);
    id = entry.parentId;
  }
  let thinkingLevel = "off";
  let model: { provider: string; modelId: string } | null = null;
  for (const e of path) {
    const any = e as Loose;
    if (e.type === "thinking_level_change") thinkingLevel = any.thinkingLevel;
    if (e.type === "model_change") model = { provider: any.provider, modelId: any.modelId };
    if (e.type === "message" && any.message.role === "assistant")
      model = { provider: any.message.provider, modelId: any.message.model };
  }
  const asMessage = (e: SessionEntry) => {
    const any = e as Loose;
    if (e.type === "message") return [any.message];
    if (e.type === "custom_message")
      return [
        {
          role: "custom",
          customType: any.customType,
          content: any.content,
          display: any.display,
          details: any.details,
          timestamp: Date.parse(e.timestamp),
        },
      ];
    if (e.type === "branch_summary" && any.summary)
      return [
        {
          role: "branchSummary",
          summary: any.summary,
          fromId: any.fromId,
          timestamp: Date.parse(e.timestamp),
        },
      ];
    return [];
  };
  const lastCompaction = path.map((e) => e.type).lastIndexOf("compaction");
  if (lastCompaction === -1) return { messages: path.flatMap(asMessage), thinkingLevel, model };
  const c = path[lastCompaction] as Loose;
  const kept = path.findIndex((e) => e.id === c.firstKeptEntryId);
  const before = kept === -1 || kept > lastCompaction ? [] : path.slice(kept, lastCompaction);
  return {
    messages: [
      {
        role: "compactionSummary",
        summary: c.summary,
        tokensBefore: c.tokensBefore,
        timestamp: Date.parse(c.timestamp),
      },
      ...before.flatMap(asMessage),
      ...path.slice(lastCompaction + 1).flatMap(asMessage),
    ],
    thinkingLevel,
    model,
  };
}

function collect(nodes: SessionTreeNode[], into: string[] = []): string[] {
  const stack = [...nodes];
  while (stack.length) {
    const node = stack.pop() as SessionTreeNode;
    into.push(node.entry.id);
    stack.push(...node.children);
  }
  return into;
}

/** Every entry's children as getChildren gives them (file order) equal the tree's (by time). */
function expectChildrenMatchTree(session: Session): void {
  const stack = [...session.getTree()];
  while (stack.length) {
    const node = stack.pop() as SessionTreeNode;
    const fromTree = node.children.map((child) => child.entry.id).sort();
    const direct = session.getChildren(node.entry.id).map((child) => child.id);
    expect(direct.sort()).toEqual(fromTree);
    stack.push(...node.children);
  }
}

async function apply(session: Session, op: Op, t: number): Promise<void> {
  const ids = session.getEntries().map((e) => e.id);
  const pick = (n: number) => ids[n % ids.length] as string;
  switch (op.kind) {
    case "user":
      await session.appendMessage({ role: "user", content: op.text, timestamp: t });
      return;
    case "assistant":
      await session.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: op.text }],
        provider: "prov",
        model: `m${t % 3}`,
        timestamp: t,
      });
      return;
    case "custom_message":
      await session.appendCustomMessageEntry("note", op.text, t % 2 === 0, { t });
      return;
    case "thinking":
      await session.appendThinkingLevelChange(op.text);
      return;
    case "model":
      await session.appendModelChange("prov", op.text);
      return;
    case "reset":
      await session.resetLeaf();
      return;
    default:
      if (ids.length === 0) return;
  }
  if (op.kind === "branch") await session.branch(pick(op.pick));
  else if (op.kind === "label") await session.appendLabelChange(pick(op.pick), op.text);
  else if (op.kind === "compaction") await session.appendCompaction(op.text, pick(op.pick), t);
  else await session.branchWithSummary(op.pick === null ? null : pick(op.pick), op.text);
}

describe("session invariants under random operations", () => {
  it("keeps the tree whole, the branch ending at the leaf, and the context equal to a reference", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { maxLength: 60 }),
        fc.integer({ min: -5, max: 5 }),
        async (ops, step) => {
          let clock = Date.parse("2026-01-01T00:00:00.000Z");
          // The clock may step backwards or stand still, as real clocks do.
          const now = () => (clock += step * 1000);
          const storage = new MemorySessionStorage();
          const session = await Session.open(storage, { create: true, now });
          for (const [i, op] of ops.entries()) await apply(session, op, i);

          const entries = session.getEntries();
          expect(collect(session.getTree()).sort()).toEqual(entries.map((e) => e.id).sort());
          const branch = session.getBranch();
          expect(branch.at(-1)?.id ?? null).toBe(session.getLeafId());
          expect(branch[0]?.parentId ?? null).toBeNull();
          expectChildrenMatchTree(session);
          expect(session.buildSessionContext()).toEqual(
            referenceContext(entries, session.getLeafId()),
          );
          for (const entry of entries.slice(-5)) {
            expect(session.buildSessionContext(entry.id)).toEqual(
              referenceContext(entries, entry.id),
            );
          }
          await session.close();

          const reopened = await Session.open(new MemorySessionStorage(storage.location), { now });
          expect(reopened.problems).toEqual([]);
          expect(reopened.getLeafId()).toBe(session.getLeafId());
          expect(reopened.getEntries()).toEqual(entries);
          expect(reopened.buildSessionContext()).toEqual(session.buildSessionContext());
          expectChildrenMatchTree(reopened);
          await reopened.close();
        },
      ),
      { numRuns: 150 },
    );
  });
});
