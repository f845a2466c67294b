import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { ImagePart } from "@arbor/orchestration";

/** The most prompt text `arbor acp` takes in one `session/prompt`, in bytes (4 MiB). */
export const MAX_PROMPT_BYTES = 4 * 1024 * 1024;

/** A prompt as the agent host takes it: its text and its images. */
export interface PromptInput {
  text: string;
  images: ImagePart[];
}

/**
 * The host's prompt from ACP content: text as it is, a resource link as a Markdown link,
 * an embedded text resource as a tagged block with its URI, an image as an image part.
 * Audio and binary resources are named, not sent (the models take none).
 */
export function promptInput(blocks: readonly ContentBlock[]): PromptInput {
  const parts: string[] = [];
  const images: ImagePart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "resource_link":
        parts.push(`[${block.name}](${block.uri})`);
        break;
      case "resource":
        if ("text" in block.resource) {
          parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
        } else {
          parts.push(`[binary resource ${block.resource.uri}, not included]`);
        }
        break;
      default:
        parts.push(`[${block.type} content, not included]`);
    }
  }
  return { text: parts.join("\n"), images };
}
