import { fileURLToPath } from "node:url";
import type { McpServerConfig } from "../src/index.js";

/** The path of a fixture server script in `test/fixtures/mcp/`. */
export const mcpFixture = (file: string): string =>
  fileURLToPath(new URL(`./fixtures/mcp/${file}`, import.meta.url));

/** The config of a fixture server run with this Node binary over stdio. */
export function stdioFixture(
  file: string,
  overrides: Partial<McpServerConfig> = {},
): McpServerConfig {
  return {
    name: "fx",
    transport: { type: "stdio", command: process.execPath, args: [mcpFixture(file)] },
    ...overrides,
  };
}
