import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx", "test/**/*.test.ts"],
    // The end-to-end tests drive the built binary in tmux and wait for what the screen shows;
    // on a loaded 2-core machine a run of them takes minutes, so the budget is generous.
    testTimeout: 120_000,
  },
});
