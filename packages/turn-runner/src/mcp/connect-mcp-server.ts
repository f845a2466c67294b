import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentTool } from "../agent-tool.js";
import { JsonSchemaCompiler } from "./json-schema-validation.js";
import { mcpAgentTools, type SkippedMcpTool } from "./mcp-agent-tools.js";
import { McpConfigError, McpServerStartError, McpToolCallError } from "./mcp-errors.js";
import { type McpServerConfig, mcpServerConfigSchema } from "./mcp-server-config.js";
import { StderrTail } from "./stderr-tail.js";

/** A connected MCP server and the tools it offers. */
export interface McpConnection {
  /** The configured name of the server. */
  name: string;
  /** The server's tools as agent tools, under model-safe names. */
  tools: AgentTool[];
  /** Listed tools not offered to the model (unusable or oversized schema), with reasons. */
  skippedTools: SkippedMcpTool[];
  /** Stops the server (stdio) or ends the session (HTTP). Safe to call twice. */
  close(): Promise<void>;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
/** At most this many pages of `tools/list`, so a server cannot page forever. */
const MAX_TOOL_PAGES = 100;
/** How long a failure waits for the last stderr output of a stdio server. */
const STDERR_GRACE_MS = 250;
const CLIENT_INFO = { name: "arbor", version: "0.0.0" };

/** Parses a config, turning a schema failure into a {@link McpConfigError}. */
export function parseMcpServerConfig(config: McpServerConfig) {
  const parsed = mcpServerConfigSchema.safeParse(config);
  if (!parsed.success) {
    const name = typeof config?.name === "string" ? config.name : "(unnamed)";
    throw new McpConfigError(
      name,
      `Invalid config of MCP server "${name}":\n${z.prettifyError(parsed.error)}`,
    );
  }
  return parsed.data;
}

/**
 * Starts (stdio) or reaches (streamable HTTP) an MCP server, lists its tools and returns
 * them as agent tools. Arguments are checked against each tool's JSON schema before the
 * call; an error result, a failed call or a server that died becomes an error the model
 * reads, never a crashed session.
 *
 * @throws McpConfigError when the config is invalid
 * @throws McpServerStartError when the server cannot be started, initialised or listed
 *
 * @example
 * ```ts
 * const files = await connectMcpServer({
 *   name: "files",
 *   transport: { type: "stdio", command: "npx", args: ["my-mcp-server"] },
 *   timeoutMs: 30_000,
 * });
 * const agent = new AgentSession({ targets, session, tools: files.tools });
 * // … later
 * await files.close();
 * ```
 */
export async function connectMcpServer(config: McpServerConfig): Promise<McpConnection> {
  const {
    name,
    transport: transportConfig,
    timeoutMs,
    startupTimeoutMs,
    toolPrefix,
  } = parseMcpServerConfig(config);
  const stderr = new StderrTail();
  let transport: Transport;
  let target: string;
  if (transportConfig.type === "stdio") {
    const stdio = new StdioClientTransport({
      command: transportConfig.command,
      args: transportConfig.args ?? [],
      ...(transportConfig.env === undefined ? {} : { env: transportConfig.env }),
      ...(transportConfig.cwd === undefined ? {} : { cwd: transportConfig.cwd }),
      stderr: "pipe",
    });
    stderr.attach(stdio.stderr);
    transport = stdio;
    target = `command "${transportConfig.command}"`;
  } else {
    transport = new StreamableHTTPClientTransport(new URL(transportConfig.url), {
      requestInit: { headers: transportConfig.headers ?? {} },
    });
    target = `URL ${transportConfig.url}`;
  }
  const isStdio = transportConfig.type === "stdio";
  const compiler = new JsonSchemaCompiler();
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: compiler });
  let closedByServer = false;
  let closedByUs = false;
  client.onclose = () => {
    closedByServer = !closedByUs;
  };
  const close = async () => {
    if (closedByUs) return;
    closedByUs = true;
    await client.close().catch(() => undefined);
  };
  const stderrText = async () => {
    if (isStdio) await stderr.settled(STDERR_GRACE_MS);
    return stderr.text();
  };

  let listed: Tool[];
  try {
    const requestOptions = { timeout: startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS };
    await client.connect(transport, requestOptions);
    listed = await listAllTools(client, requestOptions);
  } catch (error) {
    const tail = await stderrText();
    await close();
    throw new McpServerStartError(name, target, startFailureReason(error), tail, {
      cause: error,
    });
  }

  const describeFailure = async (toolName: string, error: unknown) => {
    if (closedByServer || closedByUs) {
      const tail = await stderrText();
      const why = closedByUs ? "was closed" : "has stopped";
      const output = tail === "" ? "" : `; its last stderr output:\n${tail}`;
      return new McpToolCallError(name, toolName, `MCP server "${name}" ${why}${output}`, {
        cause: error,
      });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new McpToolCallError(name, toolName, message, { cause: error });
  };
  const { tools, skipped } = mcpAgentTools(listed, toolPrefix ?? `${name}_`, {
    serverName: name,
    client,
    compiler,
    timeoutMs,
    describeFailure,
  });
  return { name, tools, skippedTools: skipped, close };
}

async function listAllTools(client: Client, options: { timeout: number }): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
  }
  throw new Error(`tools/list returned more than ${MAX_TOOL_PAGES} pages`);
}

/** Why a start failed, in words: a missing command, an HTTP status or a bad answer is named. */
function startFailureReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ENOENT") return `the command was not found (${message})`;
  if (code === "EACCES") return `the command is not executable (${message})`;
  // the SDK's HTTP errors carry the response status as a number
  if (typeof code === "number" && code >= 100 && code < 600) return `HTTP ${code}, ${message}`;
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (Array.isArray(issues)) {
    const described = issues
      .slice(0, 5)
      .map((issue: { path?: unknown[]; message?: string }) => {
        const path = (issue.path ?? []).join(".");
        return path === "" ? `${issue.message}` : `${path}: ${issue.message}`;
      })
      .join("; ");
    return `its answer breaks the MCP schema (${described})`;
  }
  const causeCode = (error as { cause?: { code?: unknown } } | null)?.cause?.code;
  return typeof causeCode === "string" ? `${message} (${causeCode})` : message;
}
