import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { SessionImportError } from "./import-errors.js";
import type { ImportedLog } from "./imported-log.js";
import { describeIoError } from "./jsonl-lines.js";
import { ImportedLogBuilder, parseObjectLine } from "./log-builder.js";
import {
  opencodeMessageSchema,
  opencodePartSchema,
  opencodeSessionSchema,
} from "./opencode-files.js";
import {
  keepOpencodeRaw,
  type OpencodeMessageRecord,
  opencodeImportedLog,
} from "./opencode-log.js";

const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Finds opencode's storage folder: `dir` itself when it holds `session/`, else
 * `dir/storage`. Undefined when neither does.
 */
export async function findOpencodeStorage(dir: string): Promise<string | undefined> {
  for (const root of [dir, join(dir, "storage")]) {
    const info = await stat(join(root, "session")).catch(() => undefined);
    if (info?.isDirectory()) return root;
  }
  return undefined;
}

/**
 * Reads every session of opencode's JSON storage folder. A file that is not JSON or not of
 * the expected shape becomes a raw custom entry of its session (a broken session info
 * file: a session without its title and folder).
 * @throws SessionImportError `not_recognized` when the folder has no `session/` folder
 */
export async function readOpencodeStorage(dir: string): Promise<ImportedLog[]> {
  const root = await findOpencodeStorage(dir);
  if (!root) {
    throw new SessionImportError(
      dir,
      "not_recognized",
      "it is not opencode's storage folder (no session/ folder in it)",
    );
  }
  const logs: ImportedLog[] = [];
  for (const project of await names(join(root, "session"))) {
    for (const file of await names(join(root, "session", project))) {
      if (!file.endsWith(".json")) continue;
      logs.push(await readOpencodeSession(root, join(root, "session", project, file)));
    }
  }
  return logs;
}

async function readOpencodeSession(root: string, infoPath: string): Promise<ImportedLog> {
  const builder = new ImportedLogBuilder();
  const info = await readJson(infoPath, builder, root);
  const parsed = opencodeSessionSchema.safeParse(info);
  const sessionId = parsed.success
    ? parsed.data.id
    : (infoPath.split("/").pop() ?? "").replace(/\.json$/, "");
  const messages: OpencodeMessageRecord[] = [];
  for (const file of await names(join(root, "message", sessionId))) {
    const path = join(root, "message", sessionId, file);
    const value = await readJson(path, builder, root);
    const message = value === undefined ? undefined : opencodeMessageSchema.safeParse(value);
    if (message?.success) {
      messages.push({ info: message.data, parts: [], source: relative(root, path) });
    } else if (value !== undefined) {
      raw(builder, root, path, JSON.stringify(value), "not an opencode message");
    }
  }
  for (const message of messages) {
    for (const name of await names(join(root, "part", message.info.id))) {
      const path = join(root, "part", message.info.id, name);
      const value = await readJson(path, builder, root);
      const part = value === undefined ? undefined : opencodePartSchema.safeParse(value);
      if (part?.success) message.parts.push(part.data);
      else if (value !== undefined)
        raw(builder, root, path, JSON.stringify(value), "not an opencode part");
    }
  }
  return opencodeImportedLog({
    sessionId,
    session: parsed.success ? parsed.data : undefined,
    messages,
    builder,
    path: infoPath,
  });
}

async function names(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function readJson(path: string, builder: ImportedLogBuilder, root: string): Promise<unknown> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return raw(builder, root, path, "", "not a regular file");
    if (info.size > MAX_FILE_BYTES) return raw(builder, root, path, "", "file larger than 64 MiB");
    const text = await readFile(path, "utf8");
    const parsed = parseObjectLine(text);
    if ("error" in parsed) return raw(builder, root, path, text, parsed.error);
    return parsed.value;
  } catch (error) {
    return raw(builder, root, path, "", describeIoError(error));
  }
}

function raw(
  builder: ImportedLogBuilder,
  root: string,
  path: string,
  text: string,
  reason: string,
): undefined {
  return keepOpencodeRaw(builder, relative(root, path), text, reason);
}
