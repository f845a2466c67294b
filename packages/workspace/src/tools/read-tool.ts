import type { ImagePart, TextPart } from "@arbor/providers";
import { type AgentTool, defineTool } from "@arbor/turn-runner";
import { z } from "zod";
import { MAX_READ_BYTES, readWorkspaceBytes, wholeCharacters } from "../operations/index.js";

/** The most bytes of a file `read` scans for a line range. */
export const MAX_READ_SCAN_BYTES = 8 * 1024 * 1024;
/** The most bytes of an image `read` hands to the model. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Lines returned when the model gives no `limit`. */
export const DEFAULT_READ_LINES = 2000;

/** The image type of a file by its first bytes, or undefined for anything else. */
export function imageMimeType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  const head = bytes.subarray(0, 12).toString("latin1");
  if (head.startsWith("GIF87a") || head.startsWith("GIF89a")) return "image/gif";
  if (head.startsWith("RIFF") && head.slice(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** The `read` tool's text for a line range of a file's text. */
export function linesOf(
  path: string,
  text: string,
  options: { offset?: number | undefined; limit?: number | undefined; partial: boolean },
): string {
  const lines = text.split("\n");
  // The last line is dropped when empty (a final line break) or cut off by the scan limit.
  if ((lines.at(-1) === "" || options.partial) && lines.length > 1) lines.pop();
  const first = Math.max(1, options.offset ?? 1);
  if (first > lines.length) {
    return `[read: ${path} has ${lines.length} lines${options.partial ? " in its first 8 MiB" : ""}; line ${first} is past the end.]`;
  }
  const limit = options.limit ?? DEFAULT_READ_LINES;
  let shown = lines.slice(first - 1, first - 1 + limit);
  let body = shown.join("\n");
  const cut = Buffer.byteLength(body) > MAX_READ_BYTES;
  if (cut) {
    body = wholeCharacters(Buffer.from(body).subarray(0, MAX_READ_BYTES)).toString("utf8");
    shown = body.split("\n");
    if (shown.length > 1) shown.pop(); // the cut line is shown whole in the next read
    body = shown.join("\n");
  }
  const last = first + shown.length - 1;
  const whole = first === 1 && last === lines.length && !options.partial && !cut;
  if (whole) return text;
  const next =
    last < lines.length
      ? ` Read on with offset ${last + 1}.`
      : cut
        ? ` Line ${last} is longer than ${MAX_READ_BYTES} bytes and was cut; use bash (cut, head -c) for the rest.`
        : "";
  const more = options.partial ? " (of the first 8 MiB; use grep or bash for the rest)" : "";
  return `${body}\n\n[read: lines ${first}-${last} of ${lines.length}${more} in ${path}.${next}]`;
}

/**
 * `read`: a text file of the workspace, whole or a range of lines (`offset`, `limit`), or an
 * image (PNG, JPEG, GIF, WebP) handed to the model as an image. Confined like every tool.
 */
export function readTool(root: string, timeoutMs: number): AgentTool {
  return defineTool({
    name: "read",
    description: `Reads a file of the working directory: text (whole, or lines offset..offset+limit-1; at most ${DEFAULT_READ_LINES} lines or ${MAX_READ_BYTES} bytes at once) or an image (png, jpeg, gif, webp).`,
    parameters: z.object({
      path: z.string().describe("Path relative to the working directory"),
      offset: z.number().int().min(1).optional().describe("First line to read (1-based)"),
      limit: z.number().int().min(1).optional().describe("Number of lines to read"),
    }),
    timeoutMs,
    async execute(
      { path, offset, limit },
      { signal },
    ): Promise<string | Array<TextPart | ImagePart>> {
      const { bytes, size } = await readWorkspaceBytes(root, path, {
        maxBytes: MAX_READ_SCAN_BYTES,
        signal,
      });
      const mimeType = imageMimeType(bytes);
      if (mimeType !== undefined) {
        if (size > MAX_IMAGE_BYTES) {
          return `${path} is an image (${mimeType}, ${size} bytes), larger than the ${MAX_IMAGE_BYTES} bytes read hands to the model.`;
        }
        return [
          { type: "text", text: `${path}: ${mimeType}, ${size} bytes` },
          { type: "image", data: bytes.toString("base64"), mimeType },
        ];
      }
      if (bytes.subarray(0, 8192).includes(0)) {
        return `${path} looks like a binary file (${size} bytes); it was not read as text.`;
      }
      const partial = bytes.length > MAX_READ_SCAN_BYTES;
      const text = wholeCharacters(
        partial ? bytes.subarray(0, MAX_READ_SCAN_BYTES) : bytes,
      ).toString("utf8");
      return linesOf(path, text, { offset, limit, partial });
    },
  }) as unknown as AgentTool;
}
