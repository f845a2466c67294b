import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ExtensionApiError } from "./errors.js";
import type { ExtensionErrorEvent } from "./events.js";
import type { ExtensionAPI } from "./extension-api.js";
import { ExtensionRunner } from "./runner.js";
import { FakeExtensionHost } from "./test/index.js";

function makeRunner() {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({ cwd: "/project", onError: (error) => errors.push(error) });
  return { runner, errors };
}

const sources = {
  name: "sources",
  description: "The URLs the answer relies on",
  schema: z.object({ urls: z.array(z.string()).min(1) }),
};

describe("requireFinalMeta", () => {
  it("lists each required block with its JSON schema and the extension that asked", async () => {
    const { runner, errors } = makeRunner();
    await runner.addExtension("cite", (arbor) => arbor.requireFinalMeta(sources));
    await runner.addExtension("rate", (arbor) =>
      arbor.requireFinalMeta({
        name: "confidence",
        description: "How sure the answer is, 0 to 1",
        schema: z.number().min(0).max(1),
      }),
    );
    const required = runner.getFinalMetaRequirements();
    expect(required.map(({ schema: _schema, ...rest }) => rest)).toEqual([
      {
        name: "sources",
        description: "The URLs the answer relies on",
        jsonSchema: {
          type: "object",
          properties: { urls: { type: "array", items: { type: "string" }, minItems: 1 } },
          required: ["urls"],
        },
        extensionName: "cite",
        extensionPath: "inline:cite",
      },
      {
        name: "confidence",
        description: "How sure the answer is, 0 to 1",
        jsonSchema: { type: "number", minimum: 0, maximum: 1 },
        extensionName: "rate",
        extensionPath: "inline:rate",
      },
    ]);
    expect(required[0]?.schema.safeParse({ urls: ["https://a.example"] }).success).toBe(true);
    expect(errors).toEqual([]);
  });

  it.each([
    ["a name with a space", { ...sources, name: "my sources" }, /must be 1-64 of/],
    ["an empty name", { ...sources, name: "" }, /must be 1-64 of/],
    ["a name of 65 characters", { ...sources, name: "x".repeat(65) }, /must be 1-64 of/],
    ["no description", { ...sources, description: undefined }, /needs a description/],
    ["a blank description", { ...sources, description: "  " }, /needs a description/],
    ["a JSON schema instead of zod", { ...sources, schema: { type: "object" } }, /zod schema/],
    ["a schema JSON cannot describe", { ...sources, schema: z.date() }, /cannot be described/],
    ["no object at all", "sources", /needs an object/],
  ])("reports %s as an invalid registration and keeps the others", async (_what, bad, why) => {
    const { runner, errors } = makeRunner();
    await runner.addExtension("broken", (arbor) => {
      arbor.requireFinalMeta(bad as never);
      arbor.requireFinalMeta({ ...sources, name: "ok" });
    });
    expect(runner.getFinalMetaRequirements().map((block) => block.name)).toEqual(["ok"]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      extensionName: "broken",
      event: "final_meta",
      kind: "invalid_registration",
    });
    expect(errors[0]?.error).toMatch(why);
  });

  it("keeps the first registration of a name and reports the later one", async () => {
    const { runner, errors } = makeRunner();
    await runner.addExtension("first", (arbor) => arbor.requireFinalMeta(sources));
    await runner.addExtension("second", (arbor) =>
      arbor.requireFinalMeta({ ...sources, description: "other" }),
    );
    expect(runner.getFinalMetaRequirements()).toMatchObject([
      { name: "sources", extensionName: "first" },
    ]);
    expect(errors).toMatchObject([
      {
        extensionName: "second",
        event: "final_meta",
        kind: "collision",
        error: "final meta sources is already required by first; this one is ignored",
      },
    ]);
  });

  it("drops what a factory required when the factory then throws", async () => {
    const { runner } = makeRunner();
    await runner.addExtension("half", (arbor) => {
      arbor.requireFinalMeta(sources);
      throw new Error("boom");
    });
    expect(runner.getFinalMetaRequirements()).toEqual([]);
  });

  it("takes a registration made after loading, and refuses one after shutdown", async () => {
    const { runner } = makeRunner();
    let api: ExtensionAPI | undefined;
    await runner.addExtension("late", (arbor) => {
      api = arbor;
    });
    runner.bindHost(await FakeExtensionHost.create());
    api?.requireFinalMeta(sources);
    expect(runner.getFinalMetaRequirements().map((block) => block.name)).toEqual(["sources"]);
    runner.bindHost(undefined);
    let thrown: unknown;
    try {
      api?.requireFinalMeta({ ...sources, name: "after" });
    } catch (error) {
      thrown = error;
    }
    expect(ExtensionApiError.isInstance(thrown) && thrown.code).toBe("host_unavailable");
  });
});
