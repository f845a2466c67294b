import { z } from "zod";

/** Starts the server as a child process and speaks MCP over its stdin and stdout. */
export const mcpStdioTransportSchema = z.object({
  type: z.literal("stdio"),
  /** The executable; looked up on `PATH` of `env` when it has no slash. */
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  /**
   * The child's environment, added to a minimal safe one (`HOME`, `PATH`, `SHELL`, `TERM`,
   * `USER`, `LOGNAME`); the rest of the parent's environment is not passed on.
   */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});
/** Starts the server as a child process and speaks MCP over its stdin and stdout. */
export type McpStdioTransport = z.infer<typeof mcpStdioTransportSchema>;

/** Speaks MCP's streamable HTTP to a running server. */
export const mcpHttpTransportSchema = z.object({
  type: z.literal("http"),
  url: z.url({ protocol: /^https?$/ }),
  /** Sent with every request, e.g. `Authorization`. */
  headers: z.record(z.string(), z.string()).optional(),
});
/** Speaks MCP's streamable HTTP to a running server. */
export type McpHttpTransport = z.infer<typeof mcpHttpTransportSchema>;

/** How one MCP server is reached and how its tools are presented to the model. */
export const mcpServerConfigSchema = z.object({
  /** Names the server in errors and, by default, prefixes its tool names. */
  name: z.string().min(1),
  transport: z.discriminatedUnion("type", [mcpStdioTransportSchema, mcpHttpTransportSchema]),
  /** Timeout of each tool call; the session's `toolTimeoutMs` applies when absent. */
  timeoutMs: z.number().int().positive().optional(),
  /** Time allowed to start, initialise and list the tools. Default 30 s. */
  startupTimeoutMs: z.number().int().positive().optional(),
  /**
   * Put before every tool name the model sees; default `<name>_`. Names are then reduced
   * to the providers' `[a-zA-Z0-9_-]{1,64}`. Pass `""` for the server's own names.
   */
  toolPrefix: z.string().optional(),
});
/** How one MCP server is reached and how its tools are presented to the model. */
export type McpServerConfig = z.input<typeof mcpServerConfigSchema>;
