import {
  MemorySessionStore,
  SessionIoError,
  type SessionPage,
  type SessionStore,
} from "@arbor/session-store";
import { afterEach, describe, expect, it } from "vitest";
import { makeTestApp, type TestApp } from "./helpers/test-app.js";

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A store on a full disk: creating fails as the file store reports it, listing with a raw ENOSPC. */
class FullDiskStore extends MemorySessionStore implements SessionStore {
  override async create(): Promise<never> {
    throw new SessionIoError("/home/arbor/sessions/x.jsonl", "disk_full", "write", "ENOSPC");
  }
  override async list(): Promise<SessionPage> {
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  }
}

describe("a full disk", () => {
  it("answers 507 disk_full, typed, never 500", async () => {
    t = await makeTestApp({ store: new FullDiskStore() });
    const created = await t.call("POST", "/v1/sessions", { json: { cwd: "/srv" } });
    expect(created.status).toBe(507);
    expect(await created.json()).toEqual({
      error: { code: "disk_full", message: expect.stringContaining("disk is full") },
    });
    const listed = await t.call("GET", "/v1/sessions");
    expect(listed.status).toBe(507);
    expect(((await listed.json()) as { error: { code: string } }).error.code).toBe("disk_full");
  });
});
