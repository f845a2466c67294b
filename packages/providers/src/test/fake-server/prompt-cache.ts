import { createHash, type Hash } from "node:crypto";
import { arborMarkerGuard, stampArborMarker } from "../../arbor-marker.js";

/** The input side of one call's usage as a provider with a prompt cache reports it. */
export interface CachedInputUsage {
  /** Tokens billed at the full input price (neither read from nor written to the cache). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Anthropic looks for an earlier cache entry this many blocks back from each breakpoint. */
const ANTHROPIC_LOOKBACK_BLOCKS = 20;

/** The Messages API's limit of `cache_control` markers per request. */
export const FAKE_ANTHROPIC_MAX_BREAKPOINTS = 4;

/** Thrown for a request the real API would reject for its cache markers. */
export class FakeCacheRequestError extends Error {
  override readonly name = "FakeCacheRequestError";
  /** A stable machine-readable code. */
  readonly code = "fake_cache_request";

  /** @param message - the error the real API answers, word for word */
  constructor(message: string) {
    super(message);
    stampArborMarker(this, new.target);
  }

  /** True for a {@link FakeCacheRequestError} from any copy of this package. */
  static readonly isInstance = arborMarkerGuard<FakeCacheRequestError>(
    "@arbor/providers:FakeCacheRequestError",
  );
}

/**
 * A model of the vendors' prompt caches for the fake server. Tokens are estimated as
 * one per four characters of each block's JSON. Anthropic: a request writes the prefix
 * up to each `cache_control` breakpoint and reads the longest prefix written before that
 * ends at most 20 blocks before one of its breakpoints. OpenAI: automatic, per model and
 * `prompt_cache_key`; a request reads the longest run of leading messages an earlier
 * request with the same key sent. The vendors' minimum cacheable lengths and the cache's
 * lifetime are not modelled.
 */
export class FakePromptCache {
  readonly #entries = new Set<string>();

  /** Usage of one Messages API body; records the prefixes it writes. */
  anthropic(body: Record<string, unknown>): CachedInputUsage {
    const blocks = anthropicBlocks(body);
    const breakpoints = blocks.flatMap((block, index) => (block.marked ? [index] : []));
    if (breakpoints.length > FAKE_ANTHROPIC_MAX_BREAKPOINTS) {
      throw new FakeCacheRequestError(
        `A maximum of ${FAKE_ANTHROPIC_MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`,
      );
    }
    const keys = prefixKeys(`anthropic:${String(body.model)}`, blocks);
    const sums = prefixSums(blocks);
    const total = sums[blocks.length] ?? 0;
    let readEnd = 0;
    for (const breakpoint of breakpoints) {
      for (
        let end = breakpoint + 1;
        end > Math.max(0, breakpoint + 1 - ANTHROPIC_LOOKBACK_BLOCKS);
        end -= 1
      ) {
        if (end > readEnd && this.#entries.has(keys[end] ?? "")) readEnd = end;
      }
    }
    const lastBreakpoint =
      breakpoints.length > 0 ? (breakpoints[breakpoints.length - 1] ?? 0) + 1 : 0;
    for (const breakpoint of breakpoints) this.#entries.add(keys[breakpoint + 1] ?? "");
    const cacheRead = sums[readEnd] ?? 0;
    const cacheWrite = Math.max(0, (sums[lastBreakpoint] ?? 0) - cacheRead);
    return { input: total - cacheRead - cacheWrite, cacheRead, cacheWrite };
  }

  /** Usage of one Chat Completions body; records its message prefixes. */
  openai(body: Record<string, unknown>): CachedInputUsage {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
    const blocks = messages.map((message) => ({ json: JSON.stringify(message), marked: false }));
    const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
    const keys = prefixKeys(`openai:${String(body.model)}:${key}`, blocks);
    const sums = prefixSums(blocks);
    let readEnd = 0;
    for (let end = blocks.length; end > 0; end -= 1) {
      if (this.#entries.has(keys[end] ?? "")) {
        readEnd = end;
        break;
      }
    }
    for (let end = 1; end <= blocks.length; end += 1) this.#entries.add(keys[end] ?? "");
    const cacheRead = sums[readEnd] ?? 0;
    return { input: (sums[blocks.length] ?? 0) - cacheRead, cacheRead, cacheWrite: 0 };
  }
}

interface CacheBlock {
  /** The block's JSON without its cache marker, prefixed by where it sits. */
  json: string;
  marked: boolean;
}

/** Tools, then the system prompt, then the messages' blocks: the order Anthropic caches in. */
function anthropicBlocks(body: Record<string, unknown>): CacheBlock[] {
  const blocks: CacheBlock[] = [];
  const add = (where: string, value: unknown) => {
    if (typeof value === "string") {
      blocks.push({
        json: `${where}:${JSON.stringify({ type: "text", text: value })}`,
        marked: false,
      });
      return;
    }
    const { cache_control, ...rest } = (value ?? {}) as Record<string, unknown>;
    blocks.push({ json: `${where}:${JSON.stringify(rest)}`, marked: cache_control !== undefined });
  };
  for (const tool of asArray(body.tools)) add("tool", tool);
  for (const block of asArray(body.system)) add("system", block);
  for (const message of asArray(body.messages)) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    for (const block of asArray(content)) add(String(role), block);
  }
  return blocks;
}

function asArray(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** `keys[n]` identifies the first `n` blocks under `scope`. */
function prefixKeys(scope: string, blocks: readonly CacheBlock[]): string[] {
  const hash: Hash = createHash("sha256").update(scope);
  const keys = [hash.copy().digest("hex")];
  for (const block of blocks) {
    hash.update("\u0000").update(block.json);
    keys.push(hash.copy().digest("hex"));
  }
  return keys;
}

/** `sums[n]` is the estimated token count of the first `n` blocks. */
function prefixSums(blocks: readonly CacheBlock[]): number[] {
  const sums = [0];
  for (const block of blocks)
    sums.push((sums[sums.length - 1] ?? 0) + Math.ceil(block.json.length / 4));
  return sums;
}
