import { describe, expect, it } from "vitest";
import { applyEdit, type EditAction, type LineState } from "./line-editor.js";
import { complete } from "./prompt-completion.js";
import { promptKeys } from "./prompt-keys.js";

/** `|` marks the cursor. */
const at = (marked: string): LineState => ({
  text: marked.replace("|", ""),
  cursor: marked.indexOf("|"),
});
const show = (state: LineState) =>
  `${state.text.slice(0, state.cursor)}|${state.text.slice(state.cursor)}`;

describe("applyEdit", () => {
  it.each<[string, EditAction["type"], string]>([
    ["hello wor|ld", "left", "hello wo|rld"],
    ["|hello", "left", "|hello"],
    ["hell|o", "right", "hello|"],
    ["hello|", "right", "hello|"],
    ["foo bar.baz|", "word_left", "foo bar.|baz"],
    ["foo  bar  |", "word_left", "foo  |bar  "],
    ["|foo bar", "word_right", "foo| bar"],
    ["a\nbc|d", "line_start", "a\n|bcd"],
    ["a|b\ncd", "line_end", "ab|\ncd"],
    ["ab|c", "backspace", "a|c"],
    ["|abc", "backspace", "|abc"],
    ["a|bc", "delete", "a|c"],
    ["abc|", "delete", "abc|"],
    ["git commit -m|", "delete_word_before", "git commit -|"],
    ["one two  |", "delete_word_before", "one |"],
    ["one| two three", "delete_word_after", "one| three"],
    ["keep\nthis li|ne", "delete_to_line_start", "keep\n|ne"],
    ["keep\n|line", "delete_to_line_start", "keep|line"],
    ["one tw|o\nthree", "delete_to_line_end", "one tw|\nthree"],
    ["one|\nthree", "delete_to_line_end", "one|three"],
    ["a😀|b", "left", "a|😀b"],
    ["a|😀b", "right", "a😀|b"],
    ["a😀|b", "backspace", "a|b"],
  ])("%j %s -> %j", (before, type, after) => {
    expect(show(applyEdit(at(before), { type } as EditAction))).toBe(after);
  });

  it("inserts at the cursor", () => {
    expect(show(applyEdit(at("hello |world"), { type: "insert", text: "big " }))).toBe(
      "hello big |world",
    );
  });
});

describe("promptKeys", () => {
  it("splits several keys of one read and keeps their order", () => {
    expect(promptKeys("ab\u0001c\u0017\r").map((key) => key.type)).toEqual([
      "edit",
      "edit",
      "edit",
      "edit",
      "submit",
    ]);
    expect(promptKeys("\u001b[1;5D")).toEqual([{ type: "edit", action: { type: "word_left" } }]);
    expect(promptKeys("\u001b[200~")).toEqual([{ type: "paste_start" }]);
    expect(promptKeys("\u001b[99Z")).toEqual([{ type: "ignore" }]);
  });

  it("keeps an unbracketed paste with line breaks as one text; a single trailing break sends", () => {
    expect(promptKeys("one\rtwo\r")).toEqual([
      { type: "edit", action: { type: "insert", text: "one\ntwo\n" } },
    ]);
    expect(promptKeys("typed\n").map((key) => key.type)).toEqual(["edit", "submit"]);
    expect(promptKeys("\n")).toEqual([{ type: "newline" }]);
  });
});

describe("complete", () => {
  const sources = {
    commands: ["help", "history-x", "tree", "thinking", "title"],
    listDir: (dir: string) =>
      dir === "" ? ["src/", "notes.txt", "notice.md", ".env"] : dir === "src/" ? ["main.ts"] : [],
  };
  it("completes slash commands: one whole with a space, several to their common start, listed", () => {
    expect(complete(at("/tr|"), sources)).toEqual({ state: at("/tree |"), candidates: [] });
    expect(complete(at("/t|"), sources)).toEqual({
      state: at("/t|"),
      candidates: ["/thinking", "/title", "/tree"],
    });
    expect(complete(at("/ti|"), sources)?.state).toEqual(at("/title |"));
    expect(complete(at("/nope|"), sources)).toBeUndefined();
    expect(complete(at("say /tr|"), sources)).toBeUndefined();
  });

  it("completes @file paths: folders with /, files with a space, hidden files only when asked", () => {
    expect(complete(at("look at @s|"), sources)?.state).toEqual(at("look at @src/|"));
    expect(complete(at("look at @src/m|"), sources)?.state).toEqual(at("look at @src/main.ts |"));
    expect(complete(at("@noti| please"), sources)).toEqual({
      state: at("@notice.md| please"),
      candidates: [],
    });
    expect(complete(at("@no|"), sources)).toEqual({
      state: at("@not|"),
      candidates: ["@notes.txt", "@notice.md"],
    });
    expect(complete(at("@|"), sources)?.candidates).not.toContain("@.env");
    expect(complete(at("@.e|"), sources)?.state).toEqual(at("@.env |"));
  });
});
