import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentTool } from "../agent-tool.js";
import type { JsonSchemaCompiler } from "./json-schema-validation.js";
import { McpToolCallError } from "./mcp-errors.js";
import { mcpErrorText, mcpToolOutput } from "./mcp-tool-result.js";
import { modelToolNames } from "./tool-names.js";

/** A tool the server listed that is not offered to the model, and why. */
export interface SkippedMcpTool {
  /** The tool's name on the server. */
  name: string;
  reason: string;
}

/** What the tools of one connection share. */
export interface McpToolContext {
  serverName: string;
  client: Client;
  compiler: JsonSchemaCompiler;
  /** Per-call timeout from the server's config; the session's default applies when absent. */
  timeoutMs: number | undefined;
  /** Turns a failed call (thrown by the client) into the error the model reads. */
  describeFailure: (toolName: string, error: unknown) => Promise<McpToolCallError>;
}

/** Schemas larger than this (as JSON) would crowd every request; such tools are skipped. */
export const MAX_INPUT_SCHEMA_CHARS = 64_000;
/** Descriptions are cut to this many characters. */
export const MAX_DESCRIPTION_CHARS = 8_000;
/** The SDK's own per-request timer is set this far out; the tool's timeout governs. */
const NO_SDK_TIMEOUT_MS = 2_147_483_647;

/**
 * Turns the tools a server listed into agent tools: model-safe names, the server's JSON
 * schema sent to the model and checked before each call, results mapped to tool output.
 * A tool whose schema does not compile or is oversized is skipped rather than offered,
 * since one bad schema can make a provider reject every request.
 */
export function mcpAgentTools(
  listed: readonly Tool[],
  prefix: string,
  context: McpToolContext,
): { tools: AgentTool[]; skipped: SkippedMcpTool[] } {
  const skipped: SkippedMcpTool[] = [];
  const usable: Array<{ tool: Tool; validate: (value: unknown) => string | undefined }> = [];
  for (const tool of listed) {
    const size = JSON.stringify(tool.inputSchema).length;
    if (size > MAX_INPUT_SCHEMA_CHARS) {
      skipped.push({
        name: tool.name,
        reason: `input schema is ${size} characters of JSON (limit ${MAX_INPUT_SCHEMA_CHARS})`,
      });
      continue;
    }
    const compiled = context.compiler.compile(tool.inputSchema);
    if (!compiled.ok) {
      skipped.push({ name: tool.name, reason: `input schema is unusable: ${compiled.error}` });
      continue;
    }
    usable.push({ tool, validate: compiled.validate });
  }
  const names = modelToolNames(
    usable.map(({ tool }) => tool.name),
    prefix,
  );
  const tools = usable.map(({ tool, validate }, index) =>
    agentTool(tool, names[index] ?? tool.name, validate, context),
  );
  return { tools, skipped };
}

function agentTool(
  tool: Tool,
  modelName: string,
  validate: (value: unknown) => string | undefined,
  context: McpToolContext,
): AgentTool {
  const { $schema: _dialect, ...inputJsonSchema } = tool.inputSchema;
  const description = (tool.description ?? tool.title ?? "").slice(0, MAX_DESCRIPTION_CHARS);
  const parameters = z.looseObject({}).superRefine((value, ctx) => {
    const problem = validate(value);
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  });
  return {
    name: modelName,
    description,
    parameters,
    inputJsonSchema,
    ...(context.timeoutMs === undefined ? {} : { timeoutMs: context.timeoutMs }),
    async execute(args, { signal }) {
      let result: Awaited<ReturnType<Client["callTool"]>>;
      try {
        result = await context.client.callTool({ name: tool.name, arguments: args }, undefined, {
          signal,
          timeout: NO_SDK_TIMEOUT_MS,
        });
      } catch (error) {
        throw await context.describeFailure(tool.name, error);
      }
      const callResult = asCallToolResult(result);
      if (callResult.isError === true) {
        throw new McpToolCallError(context.serverName, tool.name, mcpErrorText(callResult));
      }
      return mcpToolOutput(callResult);
    },
  };
}

/** A result of the protocol's early `toolResult` shape, shown as JSON text. */
function asCallToolResult(result: Awaited<ReturnType<Client["callTool"]>>): CallToolResult {
  if (Array.isArray(result.content)) return result as CallToolResult;
  const legacy = "toolResult" in result ? result.toolResult : undefined;
  return { content: [{ type: "text", text: JSON.stringify(legacy ?? null) }] };
}
