import { EventEmitter } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineAgent } from "@arbor/orchestration";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_EXTENSION_SETTINGS } from "../src/extensions/extension-settings.js";
import { ServerExtensions } from "../src/extensions/server-extensions.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-server-guard-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A stand-in for `process`: the guard listens on it. */
class FakeProcess extends EventEmitter {}

describe("stray failures of extensions", () => {
  it("are guarded on the server's process while an agent has extensions, and no longer after close", async () => {
    const file = join(dir, "stray.ts");
    await writeFile(file, "export default (arbor) => arbor.on('tool_call', () => undefined);\n");
    const where = { source: "s.yaml", base: dir, settings: DEFAULT_EXTENSION_SETTINGS };
    const fake = new FakeProcess();
    const withExtensions = new Map([
      ["ext", defineAgent({ name: "ext", models: ["a/b"], extensions: [file] })],
    ]);
    const extensions = await ServerExtensions.load(withExtensions, where, { process: fake });
    expect(fake.listenerCount("unhandledRejection")).toBe(1);
    expect(fake.listenerCount("uncaughtException")).toBe(1);
    extensions.close();
    expect(fake.listenerCount("unhandledRejection")).toBe(0);
    // No extensions, no listeners: the server's own failures keep Node's handling.
    const plain = new FakeProcess();
    const none = new Map([["plain", defineAgent({ name: "plain", models: ["a/b"] })]]);
    (await ServerExtensions.load(none, where, { process: plain })).close();
    expect(plain.listenerCount("unhandledRejection")).toBe(0);
    // A start that fails removes it again.
    const failed = new FakeProcess();
    const missing = new Map([
      ["bad", defineAgent({ name: "bad", models: ["a/b"], extensions: [join(dir, "none.ts")] })],
    ]);
    await expect(ServerExtensions.load(missing, where, { process: failed })).rejects.toThrow(
      /no such file/,
    );
    expect(failed.listenerCount("unhandledRejection")).toBe(0);
  });
});
