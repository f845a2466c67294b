import { readWorkspaceBytes } from "./read-workspace-file.js";
import { quotePath } from "./workspace-path.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";
import { MAX_WRITE_BYTES, writeWorkspaceFile } from "./write-workspace-file.js";

/** Lines of unchanged text shown around a change. */
const CONTEXT_LINES = 2;

/** What {@link editWorkspaceFile} changed. */
export interface WorkspaceEdit {
  /** A unified diff of the change (one hunk), for the model and the user. */
  diff: string;
  /** The 1-based line where the replaced text started. */
  line: number;
}

/** How many times `needle` occurs in `text`, counting overlapping matches, up to `stopAt`. */
function countMatches(text: string, needle: string, stopAt: number): number {
  let count = 0;
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0 || count >= stopAt) return count;
    count += 1;
    from = at + 1;
  }
}

/**
 * A unified diff of replacing `oldText` at `index` of `before` by `newText`: one hunk with
 * {@link CONTEXT_LINES} lines of context on each side.
 */
export function replacementDiff(
  path: string,
  before: string,
  index: number,
  oldText: string,
  newText: string,
): WorkspaceEdit {
  const lineStart = before.lastIndexOf("\n", index - 1) + 1;
  const endOfOld = index + oldText.length;
  const nextBreak = before.indexOf("\n", endOfOld);
  const lineEnd = nextBreak < 0 ? before.length : nextBreak;
  const oldBlock = before.slice(lineStart, lineEnd);
  const newBlock = before.slice(lineStart, index) + newText + before.slice(endOfOld, lineEnd);
  const allLines = before.split("\n");
  const firstLine = before.slice(0, lineStart).split("\n").length; // 1-based
  const oldLines = oldBlock.split("\n");
  const newLines = newBlock.split("\n");
  const contextBefore = allLines.slice(Math.max(0, firstLine - 1 - CONTEXT_LINES), firstLine - 1);
  const afterIndex = firstLine - 1 + oldLines.length;
  const contextAfter = allLines.slice(afterIndex, afterIndex + CONTEXT_LINES);
  const start = firstLine - contextBefore.length;
  const oldCount = contextBefore.length + oldLines.length + contextAfter.length;
  const newCount = contextBefore.length + newLines.length + contextAfter.length;
  const diff = [
    `--- ${path}`,
    `+++ ${path}`,
    `@@ -${start},${oldCount} +${start},${newCount} @@`,
    ...contextBefore.map((line) => ` ${line}`),
    ...oldLines.map((line) => `-${line}`),
    ...newLines.map((line) => `+${line}`),
    ...contextAfter.map((line) => ` ${line}`),
  ].join("\n");
  return { diff, line: firstLine };
}

/**
 * Replaces one exact occurrence of `oldText` in a text file of the workspace by `newText`.
 * The text must occur exactly once (no whitespace or line-ending normalisation), so the
 * model names the place unambiguously; the file is read and written with the confinement
 * of {@link readWorkspaceBytes} and {@link writeWorkspaceFile}.
 *
 * @throws WorkspaceToolError `no_match` when the text is not there, `ambiguous_match` when
 * it occurs more than once, `binary_file`, `too_large`, or any refusal of the path
 */
export async function editWorkspaceFile(
  root: string,
  path: string,
  oldText: string,
  newText: string,
  options: { signal?: AbortSignal } = {},
): Promise<WorkspaceEdit> {
  if (oldText === "") {
    throw new WorkspaceToolError(
      "invalid_path",
      "oldText is empty; give the exact text to replace (use write for a new file).",
    );
  }
  const { bytes, size } = await readWorkspaceBytes(root, path, {
    maxBytes: MAX_WRITE_BYTES,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (bytes.length > MAX_WRITE_BYTES) {
    throw new WorkspaceToolError(
      "too_large",
      `Refused: ${quotePath(path)} has ${size} bytes; edit works on files up to ${MAX_WRITE_BYTES} bytes.`,
    );
  }
  if (bytes.includes(0)) {
    throw new WorkspaceToolError(
      "binary_file",
      `Refused: ${quotePath(path)} looks like a binary file; edit changes text files only.`,
    );
  }
  const before = bytes.toString("utf8");
  const matches = countMatches(before, oldText, 100);
  if (matches === 0) {
    throw new WorkspaceToolError(
      "no_match",
      `oldText was not found in ${quotePath(path)}; it must match the file exactly, whitespace and line breaks included. Read the file again and copy the text.`,
    );
  }
  if (matches > 1) {
    throw new WorkspaceToolError(
      "ambiguous_match",
      `oldText occurs ${matches >= 100 ? "100 or more" : matches} times in ${quotePath(path)}; include more of the surrounding lines so it matches once.`,
    );
  }
  const index = before.indexOf(oldText);
  const after = before.slice(0, index) + newText + before.slice(index + oldText.length);
  await writeWorkspaceFile(root, path, after);
  return replacementDiff(path, before, index, oldText, newText);
}
