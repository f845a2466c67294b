import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Module specifiers a file loads at run time (type-only imports are erased by the build). */
function runtimeSpecifiers(file: string): string[] {
  const code = readFileSync(file, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  const patterns = [
    /^\s*(import|export)\s+(?!type\s)[^;]*?\sfrom\s+"([^"]+)"/gms,
    /^\s*import\s+"([^"]+)"/gm,
    /\bimport\(\s*"([^"]+)"\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[match.length - 1] ?? "");
  }
  return found;
}

/** Every package or built-in an entry pulls in, following its relative imports. */
function externalsOf(entry: string): string[] {
  const externals = new Set<string>();
  const seen = new Set<string>();
  const pending = [join(SRC, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const specifier of runtimeSpecifiers(file)) {
      if (specifier.startsWith(".")) {
        pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      } else {
        externals.add(specifier.startsWith("node:") ? "node:*" : specifier);
      }
    }
  }
  return [...externals].sort();
}

describe("what each entry of @arbor/providers loads at run time", () => {
  it("the main entry needs zod alone", () => {
    expect(externalsOf("index.ts")).toEqual(["zod"]);
  });

  it("./test (scripted model, fake provider servers, adapter contract) needs node built-ins and zod only", () => {
    // No SDK, no test framework: the contract suite is handed describe/it/expect.
    expect(externalsOf("test/index.ts")).toEqual(["node:*", "zod"]);
  });

  it("each adapter entry adds only its own official SDK", () => {
    expect(externalsOf("openai/index.ts")).toEqual(["openai", "zod"]);
    expect(externalsOf("anthropic/index.ts")).toEqual(["@anthropic-ai/sdk", "zod"]);
    expect(externalsOf("google/index.ts")).toEqual(["@google/genai", "zod"]);
  });
});
