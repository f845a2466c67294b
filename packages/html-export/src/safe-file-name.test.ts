import { describe, expect, it } from "vitest";
import { MAX_FILE_NAME_BYTES, safeFileName } from "./safe-file-name.js";

describe("safeFileName", () => {
  it("turns ids and titles from sessions into one plain file name, never a path", () => {
    const cases: Array<[string, string]> = [
      ["../x", "_x"],
      ["/tmp/abs", "_tmp_abs"],
      ["a/b", "a_b"],
      ["a\\b", "a_b"],
      ["..", "session"],
      [".", "session"],
      ["", "session"],
      [".env", "env"],
      ["CON", "_CON"],
      ["nul.txt", "_nul.txt"],
      ["com1", "_com1"],
      ["a\u0000b", "a_b"],
      ["line\nbreak\r", "line_break_"],
      ["\u001b]52;c;x\u0007", "_52_c_x_"],
      ["C:evil", "C_evil"],
      ["trailing. . .", "trailing._._"],
      ["01992552-bebc-7c3d", "01992552-bebc-7c3d"],
      ["ünïcode-🌳", "ünïcode-_"],
    ];
    for (const [raw, expected] of cases) {
      const name = safeFileName(raw);
      expect(name, JSON.stringify(raw)).toBe(expected);
      expect(name).not.toMatch(/[/\\\0]/u);
      expect(name).not.toMatch(/^\.|\.$/u);
    }
  });

  it("cuts a very long id to a length file systems take, on a character boundary", () => {
    for (const long of ["x".repeat(10_000), "é".repeat(5_000), `${"a".repeat(119)}..`]) {
      const name = safeFileName(long);
      expect(Buffer.byteLength(name, "utf8")).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
      expect(name).not.toContain("\uFFFD");
      expect(name).not.toMatch(/\.$/u);
    }
  });
});
