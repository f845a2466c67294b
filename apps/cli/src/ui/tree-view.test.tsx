import { ScriptedModel } from "@arbor/providers/test";
import { render } from "ink-testing-library";
import { describe, expect, it, vi } from "vitest";
import type { TreeLine } from "../tree-lines.js";
import { openTestHost, renderChatApp } from "./chat-host.test-util.js";
import { TreeView } from "./tree-view.js";

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));
const TAB = "\t";
const CTRL_L = "\u000c";
const ESC = "\u001B";

/** Presses Backspace `times` times, one key at a time as a terminal sends them. */
async function erase(stdin: { write: (data: string) => void }, times: number) {
  for (let count = 0; count < times; count++) {
    stdin.write("\u007f");
    await tick(5);
  }
}

const line = (id: string, entryType: string, kind: string, label?: string): TreeLine => ({
  id,
  depth: 0,
  prefix: "",
  entryType,
  kind,
  text: `${id} text`,
  label,
  active: true,
  leaf: id === "u2",
});

const LINES = [
  line("u1", "message", "user", "start"),
  line("a1", "message", "assistant"),
  line("t1", "message", "tool"),
  line("m1", "model_change", "model"),
  line("u2", "message", "user"),
];

function renderTree(onLabel = vi.fn()) {
  const app = render(
    <TreeView lines={LINES} onSelect={() => {}} onCancel={() => {}} onLabel={onLabel} />,
  );
  const frame = () => app.lastFrame() ?? "";
  return { app, frame, onLabel };
}

describe("TreeView filters and labels", () => {
  it("switches between the five filters with Tab, named in the help line", async () => {
    const { app, frame } = renderTree();
    await tick();
    const expected: [string, string[], string[]][] = [
      ["default", ["u1 text", "t1 text", "u2 text"], ["m1 text"]],
      ["no-tools", ["u1 text", "a1 text"], ["t1 text", "m1 text"]],
      ["user-only", ["u1 text", "u2 text"], ["a1 text", "t1 text"]],
      ["labeled-only", ["u1 text"], ["u2 text", "a1 text"]],
      ["all", ["u1 text", "m1 text", "t1 text"], []],
      ["default", ["u1 text"], ["m1 text"]],
    ];
    for (const [index, [filter, shown, hidden]] of expected.entries()) {
      if (index > 0) app.stdin.write(TAB);
      await vi.waitFor(() => expect(frame()).toContain(`Tab filter (${filter})`));
      for (const text of shown) expect(frame()).toContain(text);
      for (const text of hidden) expect(frame()).not.toContain(text);
    }
    expect(frame()).toContain("Ctrl+L label");
  });

  it("edits the selected entry's label with Ctrl+L; Enter saves, empty clears, Esc drops", async () => {
    const { app, frame, onLabel } = renderTree();
    await tick();
    // The cursor starts on the leaf (u2), which has no label yet.
    app.stdin.write(CTRL_L);
    await vi.waitFor(() => expect(frame()).toContain("label of u2:"));
    expect(frame()).toContain("Enter: save the label (empty clears it)");
    app.stdin.write("checkpoint");
    await vi.waitFor(() => expect(frame()).toContain("label of u2: checkpoint"));
    app.stdin.write("\r");
    await vi.waitFor(() => expect(onLabel).toHaveBeenCalledWith("u2", "checkpoint"));
    // An existing label is offered for editing; erasing it all clears it.
    app.stdin.write("\u001B[A".repeat(5));
    await tick();
    app.stdin.write(CTRL_L);
    await vi.waitFor(() => expect(frame()).toContain("label of u1: start"));
    await erase(app.stdin, 5);
    await vi.waitFor(() => expect(frame()).not.toContain("label of u1: start"));
    expect(frame()).toContain("label of u1:");
    app.stdin.write("\r");
    await vi.waitFor(() => expect(onLabel).toHaveBeenLastCalledWith("u1", ""));
    // Esc leaves the label input without a change.
    app.stdin.write(CTRL_L);
    await vi.waitFor(() => expect(frame()).toContain("label of u1"));
    app.stdin.write("nope");
    await tick();
    app.stdin.write(ESC);
    await vi.waitFor(() => expect(frame()).not.toContain("label of u1"));
    expect(onLabel).toHaveBeenCalledTimes(2);
  });

  it("stores the label in the session from the app's /tree, and clears it", async () => {
    const model = new ScriptedModel({ responses: ["answer one"] });
    const { host } = await openTestHost({ model, cwd: "/project" });
    const { app, frame, send } = await renderChatApp(host, () => model);
    await send("question one");
    await vi.waitFor(() => expect(frame()).toContain("answer one"));
    const leaf = host.session.getLeafId() as string;
    await send("/tree");
    await vi.waitFor(() => expect(frame()).toContain("Esc close"));
    app.stdin.write(CTRL_L);
    await vi.waitFor(() => expect(frame()).toContain("label of"));
    app.stdin.write("good answer");
    await tick();
    app.stdin.write("\r");
    await vi.waitFor(() => expect(host.session.getLabel(leaf)).toBe("good answer"));
    await vi.waitFor(() => expect(frame()).toContain("[good answer]"));
    app.stdin.write(CTRL_L);
    await vi.waitFor(() => expect(frame()).toContain("label of"));
    await erase(app.stdin, "good answer".length);
    app.stdin.write("\r");
    await vi.waitFor(() => expect(host.session.getLabel(leaf)).toBeUndefined());
    // Nothing else was lost: the conversation is still on the path.
    expect(JSON.stringify(host.session.getBranch())).toContain("answer one");
  });
});

describe("TreeView keys arriving in one read", () => {
  it("a label and Enter in one read save the label without the line break", async () => {
    for (const enter of ["\r", "\n", "\r\n"]) {
      const { app, onLabel } = renderTree();
      await tick();
      app.stdin.write(CTRL_L);
      await tick();
      app.stdin.write(`milestone${enter}`);
      await vi.waitFor(() => expect(onLabel).toHaveBeenCalledWith("u2", "milestone"));
      app.unmount();
    }
  });

  it("a search with a line break in one read keeps only the text", async () => {
    const { app, frame } = renderTree();
    await tick();
    app.stdin.write("u1\r");
    await tick();
    expect(frame()).toContain("search: u1");
    expect(frame()).not.toContain("\\r");
    app.unmount();
  });
});

describe("TreeView scrolling", () => {
  it("shows where the cursor is and how many entries lie above and below the window", async () => {
    const many = Array.from({ length: 30 }, (_, index) => ({
      ...line(`e${index}`, "message", "user"),
      prefix: index === 0 ? "" : "├─ ",
      leaf: false,
    }));
    const view = render(
      <TreeView lines={many} onSelect={vi.fn()} onCancel={vi.fn()} height={10} />,
    );
    await tick();
    expect(view.lastFrame()).toContain("1/30");
    expect(view.lastFrame()).toContain("↓ 20 more");
    expect(view.lastFrame()).not.toMatch(/↑ \d+ more/);
    expect(view.lastFrame()).toContain("├─ user: e1 text");
    for (let step = 0; step < 15; step++) {
      view.stdin.write("\u001B[B");
      await tick(5);
    }
    await tick();
    const frame = view.lastFrame() ?? "";
    expect(frame).toContain("16/30");
    expect(frame).toMatch(/↑ 10 more/);
    expect(frame).toMatch(/↓ 10 more/);
    expect(frame).toContain("e15 text");
    expect(frame).not.toContain("e0 text");
    view.unmount();
  });
});
