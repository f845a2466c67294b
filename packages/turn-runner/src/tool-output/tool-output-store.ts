import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArborError, arborErrorGuard } from "@arbor/session-store";

/** A stored output cannot be read: a malformed or unknown handle, or an offset past its end. */
export class ToolOutputError extends ArborError {
  /** A stable machine-readable code: `invalid_handle`, `unknown_handle` or `offset_out_of_range`. */
  declare readonly code: "invalid_handle" | "unknown_handle" | "offset_out_of_range";

  constructor(code: ToolOutputError["code"], message: string) {
    super(code, message);
    this.name = "ToolOutputError";
  }

  /** True for a {@link ToolOutputError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<ToolOutputError>(
    "@arbor/turn-runner:ToolOutputError",
  );
}

/** Handles are made here and nothing else is accepted, so a handle never names a path. */
export const TOOL_OUTPUT_HANDLE_PATTERN = /^out_[0-9a-f]{16}$/;

/** One page of a stored output. */
export interface ToolOutputPage {
  text: string;
  offset: number;
  /** Characters in the whole output. */
  total: number;
  /** Where the next page starts, or undefined at the end. */
  nextOffset: number | undefined;
}

/** Options of {@link ToolOutputStore}. */
export interface ToolOutputStoreOptions {
  /**
   * Where outputs are written (created if missing). Default: a new temporary directory,
   * made on the first save and removed by `dispose()`.
   */
  dir?: string;
}

/**
 * Keeps oversize tool outputs in files, one per output, under handles the store makes
 * itself (`out_` and 16 hex digits). Offsets and lengths count UTF-16 characters, as
 * JavaScript strings do.
 */
export class ToolOutputStore {
  readonly #configuredDir: string | undefined;
  #dir: Promise<string> | undefined;
  /** The last output read, since a model usually pages through one output at a time. */
  #recent: { handle: string; text: string } | undefined;

  constructor(options: ToolOutputStoreOptions = {}) {
    this.#configuredDir = options.dir;
  }

  /** The directory once something was saved (or the configured one). */
  async directory(): Promise<string> {
    this.#dir ??= this.#configuredDir
      ? mkdir(this.#configuredDir, { recursive: true }).then(() => this.#configuredDir as string)
      : mkdtemp(join(tmpdir(), "arbor-tool-output-"));
    return this.#dir;
  }

  /** Stores an output and returns its handle. */
  async save(text: string): Promise<string> {
    const handle = `out_${randomBytes(8).toString("hex")}`;
    await writeFile(join(await this.directory(), `${handle}.txt`), text, {
      encoding: "utf8",
      flag: "wx",
    });
    return handle;
  }

  /**
   * Reads `limit` characters from `offset` of a stored output.
   * @throws ToolOutputError for a malformed or unknown handle, or an offset past the end
   */
  async read(handle: string, offset: number, limit: number): Promise<ToolOutputPage> {
    const text = await this.#load(handle);
    if (offset > text.length || (offset === text.length && text.length > 0)) {
      throw new ToolOutputError(
        "offset_out_of_range",
        `Offset ${offset} is past the end of output ${handle}, which has ${text.length} characters.`,
      );
    }
    const end = Math.min(text.length, offset + limit);
    return {
      text: text.slice(offset, end),
      offset,
      total: text.length,
      nextOffset: end < text.length ? end : undefined,
    };
  }

  /** Removes the temporary directory the store made; a configured directory is kept. */
  async dispose(): Promise<void> {
    const dir = this.#dir;
    this.#dir = undefined;
    this.#recent = undefined;
    if (dir && !this.#configuredDir) await rm(await dir, { recursive: true, force: true });
  }

  async #load(handle: string): Promise<string> {
    if (!TOOL_OUTPUT_HANDLE_PATTERN.test(handle)) {
      throw new ToolOutputError(
        "invalid_handle",
        `"${handle.slice(0, 80)}" is not an output handle; handles look like out_0123456789abcdef and are given in truncated tool results.`,
      );
    }
    if (this.#recent?.handle === handle) return this.#recent.text;
    let text: string;
    try {
      text = await readFile(join(await this.directory(), `${handle}.txt`), "utf8");
    } catch (error) {
      if ((error as { code?: unknown }).code !== "ENOENT") throw error;
      throw new ToolOutputError(
        "unknown_handle",
        `No stored output has the handle ${handle}; use a handle from a truncated tool result of this session.`,
      );
    }
    this.#recent = { handle, text };
    return text;
  }
}
