import { describe, expect, it } from "vitest";
import type { ExtensionErrorEvent } from "./events.js";
import type { MessageRenderer, RenderableMessage } from "./message-renderer.js";
import { ExtensionRunner } from "./runner.js";

async function rendering(renderers: Record<string, MessageRenderer>) {
  const errors: ExtensionErrorEvent[] = [];
  const runner = new ExtensionRunner({ cwd: "/p", onError: (error) => errors.push(error) });
  await runner.addExtension("todo", (arbor) => {
    for (const [type, renderer] of Object.entries(renderers))
      arbor.registerMessageRenderer(type, renderer);
  });
  return { runner, errors };
}

const message = (
  customType: string,
  extra: Partial<RenderableMessage> = {},
): RenderableMessage => ({
  customType,
  content: "two items",
  display: true,
  details: { items: ["milk", "eggs"] },
  ...extra,
});

describe("registerMessageRenderer", () => {
  it("renders messages of its type with the options the app gives", async () => {
    const { runner } = await rendering({
      "todo-list": (m, options) => [
        ...(m.details as { items: string[] }).items.map((item) => `[ ] ${item}`),
        `width ${options.width}, ${options.expanded ? "expanded" : "collapsed"}`,
      ],
    });
    expect(runner.renderMessage(message("todo-list"), { width: 40, expanded: true })).toEqual({
      lines: ["[ ] milk", "[ ] eggs", "width 40, expanded"],
      extensionName: "todo",
    });
    expect(runner.getMessageRendererTypes()).toEqual(["todo-list"]);
  });

  it("splits a string into lines", async () => {
    const { runner } = await rendering({ note: () => "one\ntwo" });
    expect(runner.renderMessage(message("note"))?.lines).toEqual(["one", "two"]);
  });

  it("keeps display:false messages hidden and leaves other types to the default view", async () => {
    const { runner } = await rendering({ note: () => "shown" });
    expect(runner.renderMessage(message("note", { display: false }))).toBeUndefined();
    expect(runner.renderMessage(message("other"))).toBeUndefined();
  });

  it("a renderer that edits the message changes nothing the app holds", async () => {
    const { runner } = await rendering({
      note: (m) => {
        (m.details as { items: string[] }).items.push("hacked");
        return "x";
      },
    });
    const held = message("note");
    runner.renderMessage(held);
    expect(held.details).toEqual({ items: ["milk", "eggs"] });
  });

  it.each([
    [
      "throws",
      () => {
        throw new Error("boom");
      },
      "threw",
    ],
    ["returns a number", () => 42 as never, "invalid_return"],
    ["returns lines with a number", () => ["a", 1] as never, "invalid_return"],
    ["returns an object", () => ({ lines: [] }) as never, "invalid_return"],
  ] as Array<[string, MessageRenderer, string]>)(
    "a renderer that %s falls back to the default view and is reported",
    async (_name, renderer, kind) => {
      const { runner, errors } = await rendering({ note: renderer });
      expect(runner.renderMessage(message("note"))).toBeUndefined();
      expect(errors).toMatchObject([{ extensionName: "todo", event: "renderer", kind }]);
    },
  );

  it("the first registration of a type wins; the second is reported", async () => {
    const errors: ExtensionErrorEvent[] = [];
    const runner = new ExtensionRunner({ cwd: "/p", onError: (error) => errors.push(error) });
    await runner.addExtension("a", (arbor) => arbor.registerMessageRenderer("note", () => "a"));
    await runner.addExtension("b", (arbor) => arbor.registerMessageRenderer("note", () => "b"));
    expect(runner.renderMessage(message("note"))?.lines).toEqual(["a"]);
    expect(errors).toMatchObject([{ extensionName: "b", event: "renderer", kind: "collision" }]);
  });

  it.each([
    ["an empty type", "", () => "x"],
    ["a renderer that is not a function", "note", "x"],
  ] as Array<[string, string, MessageRenderer]>)(
    "refuses %s at registration",
    async (_n, type, renderer) => {
      const errors: ExtensionErrorEvent[] = [];
      const runner = new ExtensionRunner({ cwd: "/p", onError: (error) => errors.push(error) });
      await runner.addExtension("bad", (arbor) => arbor.registerMessageRenderer(type, renderer));
      expect(errors).toMatchObject([{ extensionName: "bad", event: "load", kind: "load_failed" }]);
      expect(errors[0]?.error).toContain("registerMessageRenderer");
      expect(runner.getMessageRendererTypes()).toEqual([]);
    },
  );
});

describe("registerMessageRenderer for the HTML export", () => {
  it("gives { html } only for the html target; text renderers work there unchanged", async () => {
    const { runner, errors } = await rendering({
      card: (_m, options) =>
        options.target === "html" ? { html: "<b>two</b> items" } : "two items",
      lines: () => ["a", "b"],
      always: () => ({ html: "<i>x</i>" }),
    });
    expect(runner.renderMessage(message("card"), { target: "html" })).toEqual({
      lines: [],
      html: "<b>two</b> items",
      extensionName: "todo",
    });
    expect(runner.renderMessage(message("card"))?.lines).toEqual(["two items"]);
    expect(runner.renderMessage(message("lines"), { target: "html" })?.lines).toEqual(["a", "b"]);
    // { html } where the app did not ask for HTML is reported and the default view is used.
    expect(runner.renderMessage(message("always"))).toBeUndefined();
    expect(runner.renderMessage(message("always"), { target: "terminal" })).toBeUndefined();
    expect(errors.map((e) => e.kind)).toEqual(["invalid_return", "invalid_return"]);
    expect(runner.renderMessage(message("card", { display: false }), { target: "html" })).toBe(
      undefined,
    );
  });

  it("reports malformed html results and falls back", async () => {
    const bad: unknown[] = [{ html: 7 }, { html: "<b>x</b>", extra: 1 }, { text: "x" }, 42];
    const { runner, errors } = await rendering(
      Object.fromEntries(bad.map((value, i) => [`bad${i}`, () => value as never])),
    );
    for (const i of bad.keys()) {
      expect(runner.renderMessage(message(`bad${i}`), { target: "html" })).toBeUndefined();
    }
    expect(errors.map((e) => e.kind)).toEqual(bad.map(() => "invalid_return"));
  });

  it("renderForExport gives what the HTML export takes: markup or joined lines, and who made it", async () => {
    const seen: unknown[] = [];
    const { runner } = await rendering({
      card: (m, options) => {
        seen.push({ details: m.details, options });
        return { html: "<b>card</b>" };
      },
      lines: () => ["a", "b"],
    });
    const stored = { content: "body", display: true, details: { n: 1 } };
    expect(runner.renderForExport({ customType: "card", ...stored })).toEqual({
      html: "<b>card</b>",
      by: "todo",
    });
    expect(seen).toEqual([
      { details: { n: 1 }, options: { target: "html", expanded: true, width: 100 } },
    ]);
    expect(runner.renderForExport({ customType: "lines", ...stored })).toEqual({
      text: "a\nb",
      by: "todo",
    });
    expect(runner.renderForExport({ customType: "other", ...stored })).toBeUndefined();
    expect(
      runner.renderForExport({ customType: "card", ...stored, display: false }),
    ).toBeUndefined();
  });
});
