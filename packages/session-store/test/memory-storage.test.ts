import { MemorySessionStorage } from "../src/index.js";
import { sessionStorageContract } from "./session-storage.contract.js";

sessionStorageContract("memory", {
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
    return Buffer.from((await storage.read()) ?? new Uint8Array()).toString("utf8");
  },
});
