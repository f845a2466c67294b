// Writes the skeleton files of a workspace package that do not exist yet.
// Usage: node scripts/new-package.mjs <packages|apps>/<name> "<description>"
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

const [dir, description = ""] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/new-package.mjs <packages|apps>/<name> <description>");
  process.exit(2);
}
const name = `@arbor/${basename(dir)}`;
const files = {
  "package.json": `${JSON.stringify(
    {
      name,
      version: "0.0.0",
      description,
      license: "MIT",
      type: "module",
      sideEffects: false,
      engines: { node: ">=20.19" },
      files: ["dist", "README.md"],
      exports: {
        ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
        "./package.json": "./package.json",
      },
      scripts: {
        build: "tsup",
        typecheck: "tsc --noEmit",
        test: "vitest run",
      },
      devDependencies: {},
      dependencies: {},
    },
    null,
    2,
  )}\n`,
  "tsconfig.json": `${JSON.stringify(
    { extends: "../../tsconfig.base.json", include: ["src", "test", "bench", "*.ts"] },
    null,
    2,
  )}\n`,
  "tsup.config.ts": `import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
`,
  "vitest.config.ts": `import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
  },
});
`,
  "README.md": `# ${name}\n\n${description}\n`,
};
mkdirSync(join(dir, "src"), { recursive: true });
for (const [file, text] of Object.entries(files)) {
  const path = join(dir, file);
  if (!existsSync(path)) writeFileSync(path, text);
}
