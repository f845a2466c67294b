import { describe, expect, it } from "vitest";
import { globToRegExp, matchesGlob } from "./glob.js";

describe("globToRegExp", () => {
  const matches = (glob: string, path: string) => matchesGlob(globToRegExp(glob), path);

  it("handles *, **, ?, braces and classes", () => {
    expect(matches("*.ts", "src/a.ts")).toBe(true);
    expect(matches("src/*.ts", "src/deep/a.ts")).toBe(false);
    expect(matches("src/**/*.ts", "src/a.ts")).toBe(true);
    expect(matches("src/**/*.ts", "src/x/y/a.ts")).toBe(true);
    expect(matches("*.{ts,tsx}", "a.tsx")).toBe(true);
    expect(matches("file?.md", "file1.md")).toBe(true);
    expect(matches("[!a]*.md", "b.md")).toBe(true);
    expect(matches("[!a]*.md", "a.md")).toBe(false);
  });

  it("matches absolute and Windows paths by their trailing segments", () => {
    expect(matches("src/*.ts", "/home/me/repo/src/a.ts")).toBe(true);
    expect(matches("src/*.ts", "C:\\repo\\src\\a.ts")).toBe(true);
    expect(matches("src/*.ts", "/home/me/repo/mysrc/a.ts")).toBe(false);
    expect(matches("/abs/*.ts", "/abs/a.ts")).toBe(true);
  });

  it("treats regex metacharacters in globs literally", () => {
    expect(matches("a+(b).ts", "a+(b).ts")).toBe(true);
    expect(matches("a+(b).ts", "aa(b).ts")).toBe(false);
  });
});
