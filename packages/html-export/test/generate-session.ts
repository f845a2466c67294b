import type { SessionSnapshot, SessionSnapshotEntry } from "../src/session-snapshot.js";

/** Options for {@link generateSession}. */
export interface GenerateSessionOptions {
  /** Number of entries to produce (approximately; the last cycle is cut to fit). */
  entries: number;
  seed?: number;
}

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
}

const WORDS =
  "tree branch session entry parse render leaf root stream rule retry model token cache compaction summary label export index buffer schema test".split(
    " ",
  );

// 1×1 PNG, so image handling is exercised without bloating the file.
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

/**
 * Generates a realistic branched session: prompts, answers with markdown and code,
 * thinking, tool calls and results, labels, model changes, compactions, branch summaries,
 * images and stream-rule interrupts with the aborted attempts they cut. Deterministic per seed.
 */
export function generateSession(options: GenerateSessionOptions): SessionSnapshot {
  const rand = random(options.seed ?? 7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const sentence = (n: number) =>
    Array.from({ length: n }, () => pick(WORDS))
      .join(" ")
      .replace(/^./, (c) => c.toUpperCase());
  const paragraph = () => Array.from({ length: 3 }, () => `${sentence(10)}.`).join(" ");
  const start = Date.UTC(2026, 0, 5, 9, 0, 0);
  const entries: SessionSnapshotEntry[] = [];
  let clock = 0;
  let parentId: string | null = null;
  let turn = 0;
  const add = (type: string, fields: Record<string, unknown>): string => {
    const id = `e${entries.length.toString(16).padStart(6, "0")}`;
    clock += 1000;
    entries.push({
      type,
      id,
      parentId,
      timestamp: new Date(start + clock).toISOString(),
      ...fields,
    });
    parentId = id;
    return id;
  };
  const usage = () => {
    const input = 2000 + Math.floor(rand() * 20000);
    const output = 100 + Math.floor(rand() * 2000);
    const cost = input * 3e-6 + output * 15e-6;
    return {
      input,
      output,
      cacheRead: input * 2,
      cacheWrite: 0,
      totalTokens: input * 3 + output,
      cost: {
        input: input * 3e-6,
        output: output * 15e-6,
        cacheRead: 0,
        cacheWrite: 0,
        total: cost,
      },
    };
  };
  const assistant = (content: unknown[], stopReason = "stop") => ({
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: turn % 7 === 3 ? "claude-opus-4-5" : "claude-sonnet-4-5",
    usage: usage(),
    stopReason,
    timestamp: start + clock,
  });
  const message = (m: Record<string, unknown>) => add("message", { message: m });

  while (entries.length < options.entries) {
    turn++;
    if (turn > 1 && turn % 9 === 0) {
      // Branch from an earlier entry, sometimes leaving a summary of the abandoned branch.
      const from = parentId as string;
      parentId = (pick(entries).id as string) ?? null;
      if (turn % 2 === 0)
        add("branch_summary", { fromId: from, summary: `## Abandoned\n${paragraph()}` });
    }
    message({
      role: "user",
      content: [
        { type: "text", text: `${sentence(8)}?\n\n${paragraph()}` },
        ...(turn % 13 === 0 ? [{ type: "image", data: PIXEL, mimeType: "image/png" }] : []),
      ],
      timestamp: start + clock,
    });
    if (turn % 11 === 0) {
      message(
        assistant([{ type: "text", text: `Using \`any\` here: ${sentence(12)}` }], "aborted"),
      );
      add("ttsr_injection", { injectedRules: [{ rule: "no-any", turn, interrupt: turn }] });
      add("custom_message", {
        customType: "ttsr-interrupt",
        content: "Rule no-any: do not use `any`; retry without it.",
        display: false,
      });
    }
    const callId = `call_${turn}`;
    message(
      assistant(
        [
          { type: "thinking", thinking: paragraph() },
          { type: "text", text: `Let me check ${pick(WORDS)}.` },
          {
            type: "toolCall",
            id: callId,
            name: pick(["read", "bash", "edit"]),
            arguments: { path: `src/${pick(WORDS)}.ts` },
          },
        ],
        "toolUse",
      ),
    );
    message({
      role: "toolResult",
      toolCallId: callId,
      toolName: "read",
      content: [
        { type: "text", text: `export function ${pick(WORDS)}() {\n  return ${turn};\n}\n` },
      ],
      isError: turn % 17 === 0,
      timestamp: start + clock,
    });
    const answer = message(
      assistant([
        {
          type: "text",
          text: `${paragraph()}\n\n\`\`\`ts\nconst ${pick(WORDS)} = await load(${turn});\nif (!value) throw new Error("missing");\n\`\`\`\n\n- ${sentence(5)}\n- ${sentence(6)}`,
        },
      ]),
    );
    if (turn % 5 === 0) add("label", { targetId: answer, label: `checkpoint ${turn}` });
    if (turn % 23 === 0) add("model_change", { provider: "anthropic", modelId: "claude-opus-4-5" });
    if (turn % 37 === 0) {
      add("compaction", {
        summary: `## Goal\n${paragraph()}\n\n## Progress\n- ${sentence(6)}`,
        firstKeptEntryId: entries[Math.max(0, entries.length - 6)]?.id,
        tokensBefore: 120000 + turn,
      });
    }
  }
  entries.length = Math.min(entries.length, options.entries);
  return {
    header: {
      type: "session",
      version: 3,
      id: `generated-${options.entries}`,
      timestamp: new Date(start).toISOString(),
      cwd: "/home/dev/project",
    },
    entries,
    leafId: entries.at(-1)?.id ?? null,
  };
}

/** The snapshot as a v3 JSONL file's text (header line, then one entry per line). */
export function toJsonl(snapshot: SessionSnapshot): string {
  return `${[snapshot.header, ...snapshot.entries].map((line) => JSON.stringify(line)).join("\n")}\n`;
}
