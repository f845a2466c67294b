import type { ImagePart, TextPart } from "@arbor/providers";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolOutput } from "../agent-tool.js";

type OutputPart = TextPart | ImagePart;

const text = (value: string): TextPart => ({ type: "text", text: value });

/** Bytes encoded by a base64 string, without decoding it. */
const base64Bytes = (data: string): number =>
  Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);

/** One MCP content block as the parts a model can read. */
function contentPart(block: ContentBlock): OutputPart {
  switch (block.type) {
    case "text":
      return text(block.text);
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return text(`[audio, ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown]`);
    case "resource_link": {
      const about = block.description === undefined ? "" : `: ${block.description}`;
      return text(`[resource link ${block.name} <${block.uri}>${about}]`);
    }
    case "resource": {
      const { resource } = block;
      if ("text" in resource) return text(`[resource <${resource.uri}>]\n${resource.text}`);
      const mimeType = resource.mimeType ?? "application/octet-stream";
      if (mimeType.startsWith("image/")) {
        return { type: "image", data: resource.blob, mimeType };
      }
      return text(
        `[resource <${resource.uri}>, ${mimeType}, ${base64Bytes(resource.blob)} bytes of binary data, not shown]`,
      );
    }
  }
}

/**
 * The parts of an MCP tool result: text and images as they are, embedded text resources
 * as text, images among embedded resources as images, and a one-line note for audio,
 * binary resources and resource links. Structured content is shown as JSON only when
 * the server sent no content blocks.
 */
export function mcpResultParts(result: CallToolResult): OutputPart[] {
  const parts = result.content.map(contentPart);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(text(JSON.stringify(result.structuredContent, null, 2)));
  }
  return parts;
}

/** The tool output for a successful MCP result; an empty result says so in words. */
export function mcpToolOutput(result: CallToolResult): ToolOutput {
  const parts = mcpResultParts(result);
  if (parts.length === 0) return "(the tool returned no content)";
  return parts.length === 1 && parts[0]?.type === "text" ? parts[0].text : parts;
}

/** The text of an MCP error result, for the error the model reads. */
export function mcpErrorText(result: CallToolResult): string {
  const texts = mcpResultParts(result)
    .filter((part): part is TextPart => part.type === "text")
    .map((part) => part.text);
  return texts.length === 0 ? "the server reported an error without details" : texts.join("\n");
}
