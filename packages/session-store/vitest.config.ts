import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    typecheck: { enabled: true, include: ["src/**/*.test-d.ts"] },
  },
});
