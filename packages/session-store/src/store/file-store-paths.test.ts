import { mkdtemp, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileSessionStore } from "./file-session-store.js";

const user = (content: string) => ({ role: "user" as const, content, timestamp: 1 });

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "arbor-store-paths-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("FileSessionStore: the files it knows", () => {
  it("finds a session moved to another folder behind its back", async () => {
    const store = new FileSessionStore({ root });
    const made = await store.create({ cwd: "/a" });
    await made.appendMessage(user("kept"));
    await made.close();
    const other = await store.create({ cwd: "/b" });
    await other.close();
    const moved = join(root, basename(join(other.location, "..")), basename(made.location));
    await rename(made.location, moved);
    expect(await store.has(made.id)).toBe(true);
    const reopened = await store.open(made.id, { readOnly: true });
    expect(reopened.location).toBe(moved);
    expect(reopened.buildSessionContext().messages).toHaveLength(1);
    await reopened.close();
  });

  it("forgets a session deleted by another process", async () => {
    const store = new FileSessionStore({ root });
    const made = await store.create({ cwd: "/a" });
    await made.close();
    expect(await store.has(made.id)).toBe(true);
    await new FileSessionStore({ root }).delete(made.id);
    expect(await store.has(made.id)).toBe(false);
    await expect(store.open(made.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("never hands one tenant's known session to another, whatever the id and tenant hold", async () => {
    const store = new FileSessionStore({ root });
    const made = await store.create({ cwd: "/a", tenant: "a\u0000b" });
    await made.close();
    expect(await store.has(made.id, { tenant: "a\u0000b" })).toBe(true);
    expect(await store.has(`b\u0000${made.id}`, { tenant: "a" })).toBe(false);
    expect(await store.has(made.id, { tenant: "a" })).toBe(false);
    expect(await store.has(made.id)).toBe(false);
  });
});

describe("FileSessionStore: working directories no folder name can hold", () => {
  it("keeps sessions of long, multibyte and NUL-holding cwds apart, listed and opened by cwd", async () => {
    const store = new FileSessionStore({ root });
    const long = `/${"a".repeat(4000)}`;
    const cwds = [long, `${long}b`, `/${"é".repeat(300)}`, "/x\u0000y", "/x-y"];
    const ids: string[] = [];
    for (const cwd of cwds) {
      const session = await store.create({ cwd, tenant: "acme" });
      await session.appendMessage(user(cwd.slice(0, 20)));
      await session.close();
      ids.push(session.id);
      expect(Buffer.byteLength(basename(join(session.location, "..")))).toBeLessThanOrEqual(255);
    }
    for (const [i, cwd] of cwds.entries()) {
      const page = await store.list({ tenant: "acme", cwd });
      expect(page.sessions.map((s) => s.id)).toEqual([ids[i]]);
      const reopened = await store.open(ids[i] as string, { tenant: "acme", readOnly: true });
      expect(reopened.getHeader().cwd).toBe(cwd);
      await reopened.close();
    }
  });
});

describe("FileSessionStore: tenants whose name is too long for a folder name as it is", () => {
  it("keeps each tenant's sessions apart at any allowed length", async () => {
    const store = new FileSessionStore({ root });
    const tenants = ["x".repeat(191), "x".repeat(200), `${"x".repeat(199)}y`, "é".repeat(200)];
    const ids: string[] = [];
    for (const tenant of tenants) {
      const session = await store.create({ cwd: "/a", tenant });
      await session.close();
      ids.push(session.id);
    }
    for (const [i, tenant] of tenants.entries()) {
      const fresh = new FileSessionStore({ root });
      expect((await fresh.list({ tenant })).sessions.map((s) => s.id)).toEqual([ids[i]]);
      for (const [j, id] of ids.entries()) expect(await fresh.has(id, { tenant })).toBe(i === j);
    }
  });
});
