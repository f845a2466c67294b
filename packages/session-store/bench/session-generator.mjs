// Writes synthetic sessions in pi's v3 JSONL format, the shape pi's SessionManager leaves on
// disk: a header line, then entries with 8-hex ids chained by parentId. A branch is simply
// an entry whose parentId points back (pi stores no leaf pointer). Seeded: the same options
// give the same bytes.

import { closeSync, openSync, writeSync } from "node:fs";

const WORDS = (
  "session tree leaf branch entry compaction summary token model provider context stream " +
  "parser buffer index cache render widget editor keyboard shortcut schema migration lint " +
  "export import async promise retry timeout value returns parent child root label file " +
  "diff path line error output input command terminal extension config handler request"
).split(" ");

const MODELS = [
  ["anthropic", "claude-opus-4-5"],
  ["anthropic", "claude-sonnet-4-5"],
  ["openai", "gpt-5.1-codex"],
  ["openrouter", "qwen/qwen3-coder"],
];
const TOOLS = ["read", "bash", "edit", "write", "grep", "ls"];
const THINKING_LEVELS = ["off", "low", "medium", "high"];

/** A small fast seeded PRNG (mulberry32); returns floats in [0, 1). */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function intBetween(rng, min, max) {
  return min + Math.floor(rng() * (max - min + 1));
}

function hex(rng, digits) {
  let out = "";
  for (let i = 0; i < digits; i++) out += Math.floor(rng() * 16).toString(16);
  return out;
}

/** A session id shaped like pi's (a UUID). */
export function sessionIdFrom(rng) {
  return `${hex(rng, 8)}-${hex(rng, 4)}-7${hex(rng, 3)}-a${hex(rng, 3)}-${hex(rng, 12)}`;
}

/** Prose of about `length` characters, with the odd newline, quote and code span. */
export function prose(rng, length) {
  const parts = [];
  let size = 0;
  while (size < length) {
    const word = WORDS[Math.floor(rng() * WORDS.length)];
    const roll = rng();
    const piece =
      roll < 0.04
        ? `${word}.\n\n`
        : roll < 0.08
          ? `\`${word}()\` `
          : roll < 0.1
            ? `"${word}" `
            : `${word} `;
    parts.push(piece);
    size += piece.length;
  }
  return parts.join("").slice(0, length);
}

/**
 * Tool output (file listings, code, logs) sliced from a pool, so megabytes of it cost
 * little to make.
 */
export class ToolOutputPool {
  constructor(rng, poolBytes = 512 * 1024) {
    const lines = [];
    let size = 0;
    for (let n = 1; size < poolBytes; n++) {
      const indent = " ".repeat(2 * intBetween(rng, 0, 4));
      const line = `${String(n).padStart(5)}\t${indent}${prose(rng, intBetween(rng, 10, 110)).replace(/\n/g, " ")}`;
      lines.push(line);
      size += line.length + 1;
    }
    this.text = lines.join("\n");
    this.rng = rng;
  }

  take(length) {
    if (length >= this.text.length)
      return this.text.repeat(Math.ceil(length / this.text.length)).slice(0, length);
    const from = Math.floor(this.rng() * (this.text.length - length));
    return this.text.slice(from, from + length);
  }
}

/** Streams a pi v3 session to a file; entries chain from the current leaf. */
export class SessionFileWriter {
  /**
   * @param {string} path
   * @param {{ seed: number, cwd: string, startTime: number }} options
   */
  constructor(path, { seed, cwd, startTime }) {
    this.rng = seededRandom(seed);
    this.fd = openSync(path, "w");
    this.chunks = [];
    this.pending = 0;
    this.bytes = 0;
    this.clock = startTime;
    this.ids = new Set();
    /** Ids on the path from the root to the leaf, in order. */
    this.path = [];
    this.messageCount = 0;
    this.model = MODELS[0];
    this.sessionId = sessionIdFrom(this.rng);
    this.writeLine({
      type: "session",
      version: 3,
      id: this.sessionId,
      timestamp: new Date(this.clock).toISOString(),
      cwd,
    });
  }

  get leafId() {
    return this.path.at(-1) ?? null;
  }

  /** Appends an entry as a child of the leaf and makes it the leaf. */
  entry(type, fields) {
    let id;
    do id = hex(this.rng, 8);
    while (this.ids.has(id));
    this.ids.add(id);
    this.clock += intBetween(this.rng, 200, 30_000);
    this.writeLine({
      type,
      id,
      parentId: this.leafId,
      timestamp: new Date(this.clock).toISOString(),
      ...fields,
    });
    this.path.push(id);
    return id;
  }

  message(message) {
    this.messageCount++;
    return this.entry("message", { message: { ...message, timestamp: this.clock } });
  }

  /** Moves the leaf `back` entries up the path; the next entry starts a branch there. */
  branchBack(back) {
    this.path.length = Math.max(1, this.path.length - back);
  }

  modelChange() {
    this.model = MODELS[Math.floor(this.rng() * MODELS.length)];
    return this.entry("model_change", { provider: this.model[0], modelId: this.model[1] });
  }

  thinkingLevelChange() {
    const level = THINKING_LEVELS[Math.floor(this.rng() * THINKING_LEVELS.length)];
    return this.entry("thinking_level_change", { thinkingLevel: level });
  }

  user(length) {
    return this.message({
      role: "user",
      content: [{ type: "text", text: prose(this.rng, length) }],
    });
  }

  /** An assistant message: thinking, text and, unless `toolName` is undefined, a tool call. */
  assistant(textLength, toolName) {
    const rng = this.rng;
    const content = [
      {
        type: "thinking",
        thinking: prose(rng, intBetween(rng, 80, 600)),
        thinkingSignature: hex(rng, 64),
      },
      { type: "text", text: prose(rng, textLength) },
    ];
    const toolCallId = toolName ? `toolu_${hex(rng, 24)}` : undefined;
    if (toolName) {
      content.push({
        type: "toolCall",
        id: toolCallId,
        name: toolName,
        arguments: { path: `src/${WORDS[intBetween(rng, 0, WORDS.length - 1)]}.ts` },
      });
    }
    const input = intBetween(rng, 2_000, 150_000);
    const output = intBetween(rng, 50, 4_000);
    const cacheRead = intBetween(rng, 0, input);
    this.message({
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: this.model[0],
      model: this.model[1],
      usage: {
        input,
        output,
        cacheRead,
        cacheWrite: 0,
        totalTokens: input + output + cacheRead,
        cost: {
          input: input * 3e-6,
          output: output * 15e-6,
          cacheRead: cacheRead * 3e-7,
          cacheWrite: 0,
          total: input * 3e-6 + output * 15e-6,
        },
      },
      stopReason: toolName ? "toolUse" : "stop",
    });
    return toolCallId;
  }

  toolResult(toolCallId, toolName, text) {
    return this.message({
      role: "toolResult",
      toolCallId,
      toolName,
      content: [{ type: "text", text }],
      isError: this.rng() < 0.05,
    });
  }

  /**
   * One turn: a user message, `toolCalls` rounds of assistant tool call and its result, and
   * a final assistant answer.
   * @returns the id of the turn's user message
   */
  turn({ toolCalls, toolOutput, userLength, textLength, maxMessages = Number.POSITIVE_INFINITY }) {
    const start = this.user(userLength());
    for (let i = 0; i < toolCalls && this.messageCount + 2 < maxMessages; i++) {
      const name = TOOLS[Math.floor(this.rng() * TOOLS.length)];
      const callId = this.assistant(textLength(), name);
      this.toolResult(callId, name, toolOutput());
    }
    if (this.messageCount < maxMessages) this.assistant(textLength(), undefined);
    return start;
  }

  compaction(firstKeptEntryId, tokensBefore) {
    return this.entry("compaction", {
      summary: prose(this.rng, intBetween(this.rng, 2_000, 6_000)),
      firstKeptEntryId,
      tokensBefore,
      details: { readFiles: ["src/index.ts", "src/session.ts"], modifiedFiles: ["src/session.ts"] },
    });
  }

  sessionName(name) {
    return this.entry("session_info", { name });
  }

  writeLine(value) {
    const line = `${JSON.stringify(value)}\n`;
    this.chunks.push(line);
    this.pending += line.length;
    this.bytes += Buffer.byteLength(line);
    if (this.pending > 1 << 20) this.drain();
  }

  drain() {
    if (this.chunks.length === 0) return;
    writeSync(this.fd, this.chunks.join(""));
    this.chunks = [];
    this.pending = 0;
  }

  close() {
    this.drain();
    closeSync(this.fd);
  }
}

export { intBetween };
