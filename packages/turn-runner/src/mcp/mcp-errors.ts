import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * Base of the errors of Arbor's MCP client. `code` is stable; `isInstance` works across
 * duplicated copies of the package.
 */
export class McpError extends ArborError {
  /** The configured name of the server concerned. */
  readonly serverName: string;

  /**
   * @param code - the stable code of the concrete error
   * @param serverName - the configured name of the server
   * @param message - what was wrong and what to do about it
   */
  constructor(code: string, serverName: string, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.serverName = serverName;
    this.name = "McpError";
  }

  /** True for any MCP error of this package, even from another copy of it. */
  static override readonly isInstance = arborErrorGuard<McpError>("@arbor/turn-runner:McpError");
}

/** An MCP server could not be started, initialised or asked for its tools. */
export class McpServerStartError extends McpError {
  /** The command of a stdio server, or the URL of an HTTP server. */
  readonly target: string;
  /** The last lines the server wrote to stderr (stdio servers), possibly empty. */
  readonly stderrTail: string;

  constructor(
    serverName: string,
    target: string,
    reason: string,
    stderrTail: string,
    options?: ErrorOptions,
  ) {
    const tail = stderrTail === "" ? "" : `\nLast stderr output:\n${stderrTail}`;
    super(
      "mcp_server_start",
      serverName,
      `MCP server "${serverName}" (${target}) failed to start: ${reason}${tail}`,
      options,
    );
    this.name = "McpServerStartError";
    this.target = target;
    this.stderrTail = stderrTail;
  }

  /** True for a {@link McpServerStartError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<McpServerStartError>(
    "@arbor/turn-runner:McpServerStartError",
  );
}

/** The configuration of MCP servers is wrong: invalid fields, duplicate names or tool names. */
export class McpConfigError extends McpError {
  constructor(serverName: string, message: string) {
    super("mcp_config", serverName, message);
    this.name = "McpConfigError";
  }

  /** True for a {@link McpConfigError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<McpConfigError>(
    "@arbor/turn-runner:McpConfigError",
  );
}

/** An MCP tool call failed: the server reported an error result, or the call itself failed. */
export class McpToolCallError extends McpError {
  /** The tool's name on the server. */
  readonly toolName: string;

  constructor(serverName: string, toolName: string, message: string, options?: ErrorOptions) {
    super("mcp_tool_call", serverName, message, options);
    this.name = "McpToolCallError";
    this.toolName = toolName;
  }

  /** True for a {@link McpToolCallError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<McpToolCallError>(
    "@arbor/turn-runner:McpToolCallError",
  );
}
