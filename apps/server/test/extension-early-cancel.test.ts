import { join } from "node:path";
import { defineAgent } from "@arbor/orchestration";
import { ScriptedModel } from "@arbor/providers/test";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { DEFAULT_EXTENSION_SETTINGS } from "../src/extensions/extension-settings.js";
import { ServerExtensions } from "../src/extensions/server-extensions.js";
import { MemoryRunEventLog, RunService } from "../src/index.js";
import { TEST_EXTENSIONS } from "./helpers/extension-server.js";

describe("a run stopped before its extensions opened", () => {
  it("still applies: a command's questions resolve to no answer at once instead of waiting", async () => {
    const agents = new Map([
      [
        "asker",
        defineAgent({
          name: "asker",
          models: ["fake/m"],
          systemPrompt: "You help.",
          extensions: [join(TEST_EXTENSIONS, "asks-everything.ts")],
        }),
      ],
    ]);
    // Each question would wait 20 s for an answer nobody sends.
    const settings = { ...DEFAULT_EXTENSION_SETTINGS, uiTimeoutMs: 20_000 };
    const extensions = await ServerExtensions.load(agents, {
      source: "test",
      base: TEST_EXTENSIONS,
      settings,
    });
    const store = new MemorySessionStore();
    const log = new MemoryRunEventLog();
    const runs = new RunService({
      store,
      log,
      agents,
      // The command asks for no prompt: the model is never called.
      models: () => new ScriptedModel({ responses: [] }),
      extensions,
    });
    try {
      for (const how of ["abort", "stop"] as const) {
        const session = await store.create({ cwd: "/srv", tenant: "t1" });
        const sessionId = session.id;
        await session.close();
        const started = Date.now();
        const record = await runs.start({
          tenantId: "t1",
          sessionId,
          agent: "asker",
          prompt: "/ask",
          ifBusy: "reject",
          command: { name: "ask", args: "" },
        });
        // At once: the run is still loading its extensions.
        await runs[how](record.id, "t1");
        let ended = await runs.get(record.id, "t1");
        while (ended.status === "queued" || ended.status === "running") {
          await new Promise((resolve) => setTimeout(resolve, 20));
          ended = await runs.get(record.id, "t1");
        }
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(ended.error).toBeUndefined();
        expect(ended.status).toBe("completed");
        const events = (await log.readEvents(record.id, 0)) as unknown as Record<string, unknown>[];
        expect(events.filter((e) => e.type === "ui_request")).toEqual([]);
        expect(events.find((e) => e.type === "ui_notify")?.message).toBe(
          "sure=undefined name=undefined hasUI=true",
        );
      }
    } finally {
      await runs.close();
      extensions.close();
    }
  }, 120_000);
});
