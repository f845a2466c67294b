import { constants } from "node:fs";
import { type FileHandle, open, readlink, realpath, stat } from "node:fs/promises";
import {
  isInsideRoot,
  kindOf,
  outsideWorkspace,
  quotePath,
  realWorkspaceRoot,
  resolveInWorkspace,
} from "./workspace-path.js";
import { WorkspaceToolError } from "./workspace-tool-error.js";

/** The most `read_file` returns of one file, in bytes. */
export const MAX_READ_BYTES = 256 * 1024;

const CHUNK_BYTES = 64 * 1024;

/**
 * Opened without blocking (a FIFO swapped in after the check cannot hang the open),
 * without following a final symlink (one swapped in after `realpath` fails the open), and
 * never as the controlling terminal.
 */
const OPEN_FLAGS =
  constants.O_RDONLY |
  (constants.O_NONBLOCK ?? 0) |
  (constants.O_NOFOLLOW ?? 0) |
  (constants.O_NOCTTY ?? 0);

function notRegular(path: string, kind: string): WorkspaceToolError {
  return new WorkspaceToolError(
    "not_a_regular_file",
    `Refused: ${quotePath(path)} is ${kind}, not a regular file; read_file only reads regular files.`,
  );
}

/**
 * Checks that the open handle is the file the checks approved: on Linux by the real path
 * the kernel gives for the descriptor, elsewhere by comparing it with a fresh `realpath`.
 */
async function assertHandleInside(
  handle: FileHandle,
  realRoot: string,
  real: string,
  path: string,
): Promise<void> {
  const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
  if (opened !== undefined) {
    if (!isInsideRoot(realRoot, opened)) throw outsideWorkspace(path);
    return;
  }
  const [now, held] = await Promise.all([realpath(real).then((p) => stat(p)), handle.stat()]);
  if (now.dev !== held.dev || now.ino !== held.ino) throw outsideWorkspace(path);
}

/** Reads at most `limit` bytes, stopping at the end of the file or when `signal` fires. */
async function readCapped(handle: FileHandle, limit: number, signal?: AbortSignal) {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < limit) {
    if (signal?.aborted) throw new WorkspaceToolError("aborted", "read_file was stopped.");
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, limit - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks);
}

/** Cuts a UTF-8 buffer back to the last whole character. */
export function wholeCharacters(bytes: Buffer): Buffer {
  let lead = bytes.length - 1;
  while (lead > 0 && lead > bytes.length - 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead -= 1;
  const first = bytes[lead] ?? 0;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return length > bytes.length - lead ? bytes.subarray(0, lead) : bytes;
}

/** Options of {@link readWorkspaceFile}. */
export interface ReadWorkspaceFileOptions {
  /** The most bytes returned. Default {@link MAX_READ_BYTES}. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Test seam: runs between the path checks and the open, where a swap would race. */
  beforeOpen?: () => Promise<void>;
}

/** What {@link readWorkspaceBytes} read of one file. */
export interface WorkspaceFileBytes {
  /** At most `maxBytes + 1` bytes from the start, so a caller sees that more followed. */
  bytes: Buffer;
  /** The file's size when it was opened. */
  size: number;
}

/**
 * Reads the head of a regular file of the workspace: only a file whose real path
 * (symlinks followed) lies inside the workspace, opened without blocking and checked again
 * through its descriptor, read up to `maxBytes + 1` bytes.
 *
 * @throws WorkspaceToolError when the path leads outside, does not exist, or is not a
 * regular file (directory, FIFO, device, socket)
 */
export async function readWorkspaceBytes(
  root: string,
  path: string,
  options: ReadWorkspaceFileOptions = {},
): Promise<WorkspaceFileBytes> {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  const realRoot = await realWorkspaceRoot(root);
  const real = await resolveInWorkspace(root, realRoot, path);
  const before = await stat(real);
  if (!before.isFile()) throw notRegular(path, kindOf(before));
  await options.beforeOpen?.();
  let handle: FileHandle;
  try {
    handle = await open(real, OPEN_FLAGS);
  } catch (error) {
    // ELOOP: the last part became a symlink after the check.
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw outsideWorkspace(path);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notRegular(path, kindOf(info));
    await assertHandleInside(handle, realRoot, real, path);
    return { bytes: await readCapped(handle, maxBytes + 1, options.signal), size: info.size };
  } finally {
    await handle.close();
  }
}

/**
 * Reads a text file of the workspace for the model through {@link readWorkspaceBytes}
 * (a longer file than `maxBytes` gives its head and a note; a binary file a note only).
 *
 * @throws WorkspaceToolError when the path leads outside, does not exist, or is not a
 * regular file (directory, FIFO, device, socket)
 */
export async function readWorkspaceFile(
  root: string,
  path: string,
  options: ReadWorkspaceFileOptions = {},
): Promise<string> {
  const maxBytes = options.maxBytes ?? MAX_READ_BYTES;
  const { bytes, size } = await readWorkspaceBytes(root, path, options);
  if (bytes.includes(0)) {
    return `${path} looks like a binary file (${size} bytes); it was not read as text.`;
  }
  if (bytes.length <= maxBytes) return bytes.toString("utf8");
  const head = wholeCharacters(bytes.subarray(0, maxBytes)).toString("utf8");
  return `${head}\n\n[read_file: ${path} has ${size} bytes; only the first ${maxBytes} are shown.]`;
}
