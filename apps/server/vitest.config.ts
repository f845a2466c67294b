import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Many tests start the built server or a PostgreSQL cluster and wait for what the socket
    // shows; on a loaded two-core machine that can take seconds, so the budget is generous.
    testTimeout: 60_000,
  },
});
