import { describe, expect, it } from "vitest";
import { parseCliArgs } from "./args.js";
import { printModeWords } from "./main.js";

const words = (argv: string[], terminal = true) => printModeWords(parseCliArgs(argv), terminal);

describe("printModeWords", () => {
  it.each<[string[], boolean, string[] | undefined]>([
    [["-p", "fix the tests"], true, ["fix the tests"]],
    [["--print", "a", "b"], true, ["a", "b"]],
    [["-p"], false, []],
    [["fix the failing tests"], true, ["fix the failing tests"]],
    [["explain", "this"], true, ["explain", "this"]],
    [["Why?"], true, ["Why?"]],
    [["--output-format", "json", "hi there"], true, ["hi there"]],
    [["run", "--output-format", "stream-json", "hi"], true, ["hi"]],
    [["run", "hi"], true, undefined],
    [[], true, undefined],
    [[], false, []],
    [["sessions", "list"], false, undefined],
    [["demo"], true, undefined],
    [["frobnicate"], true, undefined],
  ])("%j (stdin a terminal: %s) -> %j", (argv, terminal, expected) => {
    expect(words(argv, terminal)).toEqual(expected);
  });
});
