import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "openai/index": "src/openai/index.ts",
    "anthropic/index": "src/anthropic/index.ts",
    "google/index": "src/google/index.ts",
    "test/index": "src/test/index.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  external: ["openai", "@anthropic-ai/sdk", "@google/genai"],
});
