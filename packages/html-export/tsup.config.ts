import { defineConfig } from "tsup";
import { buildClient } from "./build-client.js";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  onSuccess: buildClient,
});
