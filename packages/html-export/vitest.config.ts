import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A browser on a machine busy with the other packages' tests can take seconds to reflow.
    expect: { poll: { timeout: 10_000 } },
  },
});
