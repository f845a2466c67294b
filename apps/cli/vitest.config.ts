import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "test/**/*.test.ts"],
    // The end-to-end tests drive the built binary in tmux; give them room on a busy machine.
    testTimeout: 30_000,
  },
});
