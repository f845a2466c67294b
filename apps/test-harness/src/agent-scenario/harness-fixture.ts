import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The path of a file under the harness package's `fixtures/` folder, found by walking up
 * from this module, so it resolves from `src/` (tests) and from `dist/` (the built harness).
 * @throws Error naming the file when the package does not hold it
 */
export function harnessFixturePath(...segments: string[]): string {
  const relative = join("fixtures", ...segments);
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, relative))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`${relative} is missing from the harness package`);
    dir = parent;
  }
  return join(dir, relative);
}
