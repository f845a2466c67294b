import { copyFile, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSessionFile, type SessionTreeNode } from "../src/index.js";
import { piFixtureNames, piFixturesDir } from "./pi-fixtures.js";

interface OracleNode {
  id: string;
  type: string;
  label?: string;
  labelTimestamp?: string;
  children: OracleNode[];
}

function toOracleTree(nodes: SessionTreeNode[]): OracleNode[] {
  return nodes.map((node) => ({
    id: node.entry.id,
    type: node.entry.type,
    ...(node.label !== undefined ? { label: node.label, labelTimestamp: node.labelTimestamp } : {}),
    children: toOracleTree(node.children),
  }));
}

async function oracle(name: string) {
  return JSON.parse(await readFile(join(piFixturesDir(), `${name}.oracle.json`), "utf8"));
}

describe.each(piFixtureNames("s1-"))("pi v3 fixture %s", (name) => {
  const path = join(piFixturesDir(), `${name}.jsonl`);

  it("opens with pi's header, leaf, name, labels, tree, branch and context", async () => {
    const expected = await oracle(name);
    const before = await readFile(path);
    const session = await openSessionFile(path, { readOnly: true });
    expect(session.problems).toEqual([]);
    expect(session.getHeader()).toEqual(expected.header);
    expect(session.getEntries()).toHaveLength(expected.entryCount);
    expect(session.getLeafId()).toBe(expected.leafId);
    expect(session.getSessionName() ?? null).toBe(expected.sessionName);
    const labels: Record<string, string> = {};
    for (const entry of session.getEntries()) {
      const label = session.getLabel(entry.id);
      if (label !== undefined) labels[entry.id] = label;
    }
    expect(labels).toEqual(expected.labels);
    expect(toOracleTree(session.getTree())).toEqual(expected.tree);
    expect(session.getBranch().map((entry) => entry.id)).toEqual(expected.branch);
    expect(session.buildSessionContext()).toEqual(expected.context);
    for (const other of expected.others) {
      expect(session.getBranch(other.id).map((entry) => entry.id)).toEqual(other.branch);
      expect(session.buildSessionContext(other.id)).toEqual(other.context);
    }
    await session.close();
    expect(await readFile(path)).toEqual(before);
  });

  it("gives every entry's children consistent with the tree", async () => {
    const session = await openSessionFile(path, { readOnly: true });
    for (const entry of session.getEntries()) {
      for (const child of session.getChildren(entry.id)) expect(child.parentId).toBe(entry.id);
    }
    const childCount = session
      .getEntries()
      .reduce((sum, entry) => sum + session.getChildren(entry.id).length, 0);
    const roots = session.getEntries().filter((entry) => entry.parentId === null).length;
    expect(childCount + roots).toBe(session.getEntries().length);
  });
});

describe.each(piFixtureNames("v1-"))("pi v1 fixture %s", (name) => {
  it("migrates to v3 with pi's counts, tree shape and context", async () => {
    const expected = await oracle(name);
    const dir = await mkdtemp(join(tmpdir(), "arbor-v1-"));
    const path = join(dir, `${name}.jsonl`);
    await copyFile(join(piFixturesDir(), `${name}.jsonl`), path);
    const original = await readFile(path);

    const session = await openSessionFile(path);
    expect(session.getHeader()).toEqual(expected.header);
    const entries = session.getEntries();
    expect(entries).toHaveLength(expected.entryCount);
    const typeCounts: Record<string, number> = {};
    const roleCounts: Record<string, number> = {};
    for (const entry of entries) {
      typeCounts[entry.type] = (typeCounts[entry.type] ?? 0) + 1;
      if (entry.type === "message") {
        const role = (entry as { message: { role: string } }).message.role;
        roleCounts[role] = (roleCounts[role] ?? 0) + 1;
      }
    }
    expect(typeCounts).toEqual(expected.entryTypeCounts);
    expect(roleCounts).toEqual(expected.messageRoleCounts);
    expect(session.getTree()).toHaveLength(expected.treeRoots);
    expect(session.getBranch()).toHaveLength(expected.leafBranchLength);
    expect(session.getSessionName() ?? null).toBe(expected.sessionName);
    expect(entries.filter((entry) => session.getLabel(entry.id) !== undefined)).toHaveLength(
      expected.labelCount,
    );
    expect(session.buildSessionContext()).toEqual(expected.context);
    await session.close();

    // Rewritten in place as v3, the original kept as a backup, and migration is idempotent.
    // Buffers compared whole: a deep equality walks megabytes byte by byte.
    expect((await readFile(`${path}.v1.bak`)).equals(original)).toBe(true);
    const migrated = await readFile(path, "utf8");
    expect(JSON.parse(migrated.slice(0, migrated.indexOf("\n"))).version).toBe(3);
    const again = await openSessionFile(path);
    expect(again.getEntries().map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));
    await again.close();
    expect(await readFile(path, "utf8")).toBe(migrated);
  });

  it("migrates in memory only when opened read-only", async () => {
    const dir = await mkdtemp(join(tmpdir(), "arbor-v1-ro-"));
    const path = join(dir, `${name}.jsonl`);
    await copyFile(join(piFixturesDir(), `${name}.jsonl`), path);
    const original = await readFile(path);
    const session = await openSessionFile(path, { readOnly: true });
    expect(session.getHeader().version).toBe(3);
    expect((await readFile(path)).equals(original)).toBe(true);
  });
});
