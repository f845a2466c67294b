// A generated Claude Code projects folder for the import benchmark: sessions shaped like
// Claude Code 2.x writes them (assistant messages split over lines sharing message.id with
// repeated usage, tool calls and results of 1–60 KB, progress and snapshot lines, a
// compaction now and then, a sidechain file per few sessions). Seeded, made once.

import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { dataDir, MIB } from "./bench-data.mjs";
import {
  intBetween,
  prose,
  seededRandom,
  sessionIdFrom,
  ToolOutputPool,
} from "./session-generator.mjs";

const RECIPE = 1;
const SESSION_BYTES = 4 * MIB;
const PROJECTS = 10;

class ClaudeFileWriter {
  constructor(path, rng, sessionId, cwd, sidechain = false) {
    this.fd = openSync(path, "w");
    this.rng = rng;
    this.sessionId = sessionId;
    this.cwd = cwd;
    this.sidechain = sidechain;
    this.parent = null;
    this.bytes = 0;
    this.n = 0;
    this.ms = Date.UTC(2026, 0, 1);
  }
  uuid() {
    this.n++;
    return `${this.sessionId.slice(0, 8)}-${String(this.n).padStart(4, "0")}-4000-8000-${String(this.n).padStart(12, "0")}`;
  }
  write(fields) {
    this.ms += intBetween(this.rng, 200, 5000);
    const uuid = this.uuid();
    const line = JSON.stringify({
      parentUuid: this.parent,
      isSidechain: this.sidechain,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: "2.1.30",
      gitBranch: "main",
      ...fields,
      uuid,
      timestamp: new Date(this.ms).toISOString(),
    });
    this.parent = uuid;
    this.append(line);
  }
  append(line) {
    writeSync(this.fd, `${line}\n`);
    this.bytes += line.length + 1;
  }
  close() {
    closeSync(this.fd);
  }
}

function writeSession(writer, rng, pool, targetBytes) {
  let message = 0;
  while (writer.bytes < targetBytes) {
    writer.append(
      JSON.stringify({
        type: "file-history-snapshot",
        messageId: `m${message}`,
        snapshot: { trackedFileBackups: {} },
        isSnapshotUpdate: false,
      }),
    );
    writer.write({
      type: "user",
      message: { role: "user", content: prose(rng, intBetween(rng, 40, 600)) },
    });
    const turns = intBetween(rng, 1, 6);
    for (let t = 0; t < turns; t++) {
      const id = `msg_${writer.sessionId.slice(0, 8)}_${message++}`;
      const usage = {
        input_tokens: intBetween(rng, 1, 5000),
        cache_read_input_tokens: intBetween(rng, 0, 90000),
        output_tokens: intBetween(rng, 10, 2000),
      };
      const assistant = (content, stop) => ({
        type: "assistant",
        requestId: `req_${id}`,
        message: {
          id,
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5-20250929",
          content,
          stop_reason: stop,
          usage,
        },
      });
      writer.write(
        assistant(
          [
            {
              type: "thinking",
              thinking: prose(rng, intBetween(rng, 100, 1500)),
              signature: "sig",
            },
          ],
          null,
        ),
      );
      writer.write(assistant([{ type: "text", text: prose(rng, intBetween(rng, 50, 800)) }], null));
      const toolId = `toolu_${id}`;
      writer.write(
        assistant(
          [
            {
              type: "tool_use",
              id: toolId,
              name: "Read",
              input: { file_path: `${writer.cwd}/src/file${t}.ts` },
            },
          ],
          "tool_use",
        ),
      );
      writer.write({
        type: "progress",
        data: { type: "hook_progress", hookEvent: "PostToolUse" },
        toolUseID: toolId,
      });
      const output = pool.take(intBetween(rng, 1024, 60 * 1024));
      writer.write({
        type: "user",
        message: {
          role: "user",
          content: [{ tool_use_id: toolId, type: "tool_result", content: output }],
        },
        toolUseResult: { type: "text", file: { numLines: 100 } },
      });
    }
    writer.write({
      type: "assistant",
      requestId: "req_end",
      message: {
        id: `msg_end_${message++}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [{ type: "text", text: prose(rng, 300) }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 100 },
      },
    });
    if (rng() < 0.02) {
      const logical = writer.parent;
      writer.parent = null;
      writer.write({
        type: "system",
        subtype: "compact_boundary",
        content: "Conversation compacted",
        logicalParentUuid: logical,
        compactMetadata: { trigger: "auto", preTokens: 150000 },
      });
      writer.write({
        type: "user",
        isCompactSummary: true,
        message: { role: "user", content: prose(rng, 4000) },
      });
    }
  }
}

/**
 * The folder (made once per size into `.bench-data/`), and its size in bytes.
 * @param {number} totalBytes
 */
export function claudeProjectsFolder(totalBytes) {
  const dir = join(dataDir, `claude-projects-${Math.round(totalBytes / MIB)}mib-r${RECIPE}`);
  if (existsSync(dir)) return { dir, bytes: folderBytes(dir) };
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const rng = seededRandom(20260101);
  const pool = new ToolOutputPool(rng, 2 * MIB);
  let written = 0;
  for (let i = 0; written < totalBytes; i++) {
    const project = join(tmp, `-projects-bench-${i % PROJECTS}`);
    mkdirSync(project, { recursive: true });
    const sessionId = sessionIdFrom(rng);
    const writer = new ClaudeFileWriter(
      join(project, `${sessionId}.jsonl`),
      rng,
      sessionId,
      `/projects/bench-${i % PROJECTS}`,
    );
    writeSession(writer, rng, pool, Math.min(SESSION_BYTES, totalBytes - written));
    writer.close();
    written += writer.bytes;
    if (i % 5 === 4 && written < totalBytes) {
      const agents = join(project, sessionId, "subagents");
      mkdirSync(agents, { recursive: true });
      const agent = new ClaudeFileWriter(
        join(agents, `agent-a${i}.jsonl`),
        rng,
        sessionId,
        `/projects/bench-${i % PROJECTS}`,
        true,
      );
      writeSession(agent, rng, pool, 256 * 1024);
      agent.close();
      written += agent.bytes;
    }
  }
  renameSync(tmp, dir);
  return { dir, bytes: folderBytes(dir) };
}

function folderBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}
