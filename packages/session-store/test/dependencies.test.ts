import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await sourceFiles(path)));
    else if (/\.ts$/.test(entry.name) && !/\.test(-d|-util)?\.ts$/.test(entry.name))
      found.push(path);
  }
  return found;
}

describe("what installing the package brings in", () => {
  it("is zod alone: the only runtime dependency, and the only package the source imports", async () => {
    const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(["zod"]);
    // sql.js, for opencode's database, is an optional peer: installing the package never
    // brings it in, and only the import reader's loader asks for it, when it is needed.
    expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(["sql.js"]);
    expect(manifest.peerDependenciesMeta).toEqual({ "sql.js": { optional: true } });
    expect(manifest.optionalDependencies ?? {}).toEqual({});

    const files = await sourceFiles(join(root, "src"));
    expect(files.length).toBeGreaterThan(10);
    const outside = new Set<string>();
    for (const file of files) {
      const text = await readFile(file, "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        if (!specifier?.startsWith(".") && !specifier?.startsWith("node:"))
          outside.add(`${specifier} in ${file.slice(root.length + 1)}`);
      }
    }
    expect([...outside].filter((s) => !s.startsWith("zod in "))).toEqual([
      "sql.js in src/import/sqljs-loader.ts",
    ]);
  });
});
