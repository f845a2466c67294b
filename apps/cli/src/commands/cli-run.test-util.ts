import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { CliIo } from "../cli-context.js";
import { main } from "../main.js";

/** Runs `arbor` in-process with the given arguments, capturing what it prints. */
export async function runCli(
  argv: readonly string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    /** What stdin holds, and whether it is a terminal. Default: empty, not a terminal. */
    stdin?: { text: string; isTTY: boolean };
  },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    stdin: Object.assign(Readable.from(options.stdin ? [options.stdin.text] : []), {
      isTTY: options.stdin?.isTTY ?? false,
    }),
    env: options.env,
    cwd: options.cwd,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** What a raw session file written by {@link writeRawSession} holds. */
export interface RawSession {
  id: string;
  cwd?: string;
  title?: string;
  user?: string;
  assistant?: string;
  label?: string;
}

/**
 * Writes a session file line by line, the way a hostile or foreign tool could: any id,
 * title and message text, with no sanitising.
 * @returns the file's path
 */
export async function writeRawSession(dir: string, fileName: string, raw: RawSession) {
  await mkdir(dir, { recursive: true });
  const time = "2025-01-01T00:00:00.000Z";
  const lines: unknown[] = [
    { type: "session", version: 3, id: raw.id, timestamp: time, cwd: raw.cwd ?? "/project" },
    {
      type: "message",
      id: "e1",
      parentId: null,
      timestamp: time,
      message: {
        role: "user",
        content: [{ type: "text", text: raw.user ?? "hello" }],
        timestamp: 1,
      },
    },
    {
      type: "message",
      id: "e2",
      parentId: "e1",
      timestamp: time,
      message: {
        role: "assistant",
        content: [{ type: "text", text: raw.assistant ?? "hi" }],
        timestamp: 2,
      },
    },
  ];
  if (raw.title !== undefined) {
    lines.push({
      type: "session_info",
      id: "e3",
      parentId: "e2",
      timestamp: time,
      name: raw.title,
    });
  }
  if (raw.label !== undefined) {
    lines.push({
      type: "label",
      id: "e4",
      parentId: raw.title !== undefined ? "e3" : "e2",
      timestamp: time,
      targetId: "e2",
      label: raw.label,
    });
  }
  const path = join(dir, fileName);
  await writeFile(path, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return path;
}
