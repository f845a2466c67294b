import { describe, expect, it } from "vitest";
import { MemorySessionStorage, Session } from "../src/index.js";
import { sessionStorageContract } from "../src/storage/session-storage-contract.js";

sessionStorageContract({ describe, it, expect }, "memory", {
  async fresh() {
    return new MemorySessionStorage();
  },
  async same(storage) {
    return new MemorySessionStorage(storage.location);
  },
  async seeded(text) {
    return MemorySessionStorage.from(text);
  },
  async text(storage) {
    return Buffer.from((storage as MemorySessionStorage).bytes() ?? []).toString("utf8");
  },
});

describe("memory sessions", () => {
  it("ask where a fork goes, since there is no directory to put it in", async () => {
    const session = await Session.open(new MemorySessionStorage(), { create: true });
    const id = await session.appendMessage({ role: "user", content: "hi", timestamp: 1 });
    await expect(session.fork(id)).rejects.toThrow(/pass \{ storage \}/);
  });
});
