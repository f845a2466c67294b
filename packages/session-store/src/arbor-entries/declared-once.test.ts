import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { arborEntrySchemas } from "./arbor-entry-registry.js";

/*
 * Arbor's custom types are declared once, in this folder: writers and readers in every
 * package and app import the constants. Tests and fixtures may spell them out.
 */

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "../../../..");

/** The source files of every package and app, tests and fixtures left out. */
function sourceFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, item.name);
      if (item.isDirectory()) {
        if (item.name !== "node_modules" && item.name !== "__fixtures__") walk(path);
      } else if (/\.tsx?$/.test(item.name) && !/\.test(-d)?\.tsx?$/.test(item.name)) {
        files.push(path);
      }
    }
  };
  for (const group of ["packages", "apps"]) {
    for (const pkg of readdirSync(join(repoRoot, group), { withFileTypes: true })) {
      if (!pkg.isDirectory()) continue;
      const src = join(repoRoot, group, pkg.name, "src");
      try {
        walk(src);
      } catch {
        // A package without src has no sources to check.
      }
    }
  }
  return files.filter((file) => dirname(file) !== here);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("Arbor's custom types", () => {
  const files = sourceFiles().map((file) => ({
    file: relative(repoRoot, file),
    // Comments may name a type (tsdoc says which entry a function reads); code may not.
    lines: readFileSync(file, "utf8")
      .split("\n")
      .map((line) => (/^\s*(?:\*|\/\*|\/\/)/.test(line) ? "" : line)),
  }));

  it("finds the sources of the packages and apps", () => {
    expect(files.some(({ file }) => file.startsWith("packages/html-export/src/"))).toBe(true);
    expect(files.some(({ file }) => file.startsWith("apps/cli/src/"))).toBe(true);
  });

  it("are spelled out only in this module", () => {
    const literals = new RegExp(
      `["'\`](?:${Object.keys(arborEntrySchemas).map(escapeRegExp).join("|")})["'\`]`,
    );
    const found = files.flatMap(({ file, lines }) =>
      lines.flatMap((line, index) => (literals.test(line) ? [`${file}:${index + 1}`] : [])),
    );
    expect(found).toEqual([]);
  });

  it("are not declared anywhere else, registered or not", () => {
    const declaration =
      /(?:_CUSTOM_TYPE|_ENTRY_TYPE)\s*=\s*["'`]arbor\.|customType\W{1,8}["'`]arbor\.|append(?:Custom|CustomMessage)Entry\(\s*["'`]arbor\./;
    const found = files.flatMap(({ file, lines }) =>
      lines.flatMap((line, index) => (declaration.test(line) ? [`${file}:${index + 1}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
