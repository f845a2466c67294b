import { describe, expect, it } from "vitest";
import { assembleChunks } from "./read-chunks.js";

describe("assembleChunks", () => {
  it("puts the header first and the chunks in number order, one line each", () => {
    const log = assembleChunks([
      [1, "c\nd", "256,257"],
      [-1, '{"type":"session"}', null],
      [0, "a\nb", "1,2"],
    ]);
    expect(log?.ordered).toBe(true);
    expect(log?.content.join("")).toBe('{"type":"session"}\na\nb\nc\nd\n');
  });

  it("is undefined without a header row: there is no such session", () => {
    expect(assembleChunks([[0, "a", "1"]])).toBeUndefined();
    expect(assembleChunks([])).toBeUndefined();
  });

  it("leaves out chunks with no entries (a range emptied by nothing stored there)", () => {
    expect(
      assembleChunks([
        [-1, "h", null],
        [0, null, null],
        [1, "x", "300"],
      ])?.content.join(""),
    ).toBe("h\nx\n");
  });

  it("says a chunk came out of order when its sequence numbers do not strictly increase", () => {
    for (const seqs of ["2,1", "1,1", "1,3,2", "5,x", "1,,2"]) {
      expect(
        assembleChunks([
          [-1, "h", null],
          [0, "a\nb", seqs],
        ])?.ordered,
        seqs,
      ).toBe(false);
    }
    expect(
      assembleChunks([
        [-1, "h", null],
        [0, "a\nb\nc", "1,7,300"],
      ])?.ordered,
    ).toBe(true);
  });
});
