import { defineConfig } from "tsup";

export default defineConfig({
  // The cli entry keeps its #!/usr/bin/env node line; esbuild preserves entry hashbangs.
  entry: { index: "src/index.ts", cli: "src/cli.ts" },
  format: ["esm"],
  dts: { entry: { index: "src/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
  external: ["openai", "@anthropic-ai/sdk"],
});
