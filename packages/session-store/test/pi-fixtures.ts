import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of session files made by pi with pi's answers beside them. It lives in the
 * `shared/` folder next to the repository checkout.
 */
export function piFixturesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, "shared", "fixtures", "pi-sessions");
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(
    "pi fixtures not found: expected shared/fixtures/pi-sessions beside the repository",
  );
}

/** The names (without extension) of the fixtures of one format version. */
export function piFixtureNames(prefix: "s1-" | "v1-"): string[] {
  return readdirSync(piFixturesDir())
    .filter((name) => name.startsWith(prefix) && name.endsWith(".jsonl"))
    .map((name) => name.slice(0, -".jsonl".length))
    .sort();
}
