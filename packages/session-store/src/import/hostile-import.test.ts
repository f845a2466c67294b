import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemorySessionStore } from "../store/memory-session-store.js";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import { SessionImportError } from "./import-errors.js";
import { defined, openImported } from "./import-test-util.js";
import { importIntoStore } from "./store-import.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-hostile-import-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cc = (uuid: string, parentUuid: string | null, text: string, extra: object = {}) =>
  JSON.stringify({
    type: "user",
    uuid,
    parentUuid,
    sessionId: "s-hostile",
    timestamp: "2025-10-01T10:00:00.000Z",
    message: { role: "user", content: text },
    ...extra,
  });
const cx = (type: string, payload: unknown) =>
  JSON.stringify({ timestamp: "2025-10-01T10:00:00.000Z", type, payload });

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

async function importError(read: () => Promise<unknown>): Promise<SessionImportError> {
  const error = await read().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!SessionImportError.isInstance(error))
    throw new Error(`expected a SessionImportError, got ${String(error)}`);
  return error;
}

const BROKEN_LINES = [
  "{",
  '{"type":"user","uuid":"t1","message":{"role":"us',
  "[1,2,3]",
  '"just a string"',
  "null",
  "42",
  '{"type":5}',
  '{"no":"type"}',
  "\u0000\u0001garbage",
  "{}}",
];

describe("hostile input to the readers", () => {
  it("keeps every broken line in the middle of a Claude Code file as a raw entry, the rest imported", async () => {
    const path = await file(
      "cc-broken.jsonl",
      [cc("u1", null, "first"), ...BROKEN_LINES, cc("u2", "u1", "second")].join("\n"),
    );
    const [log] = await readClaudeCodeFile(path);
    expect(log?.report.raw).toBe(BROKEN_LINES.length);
    expect(log?.report.issues.map((i) => i.line)).toEqual(BROKEN_LINES.map((_, i) => i + 2));
    const raws = log?.entries
      .filter((e) => e.type === "custom")
      .map((e) => (e as { data: { text: string } }).data.text);
    expect(raws).toEqual(BROKEN_LINES);
    const session = await openImported(defined(log));
    // The raw entries sit between the two, on the same path: no branch is made of them.
    expect(session.getBranch("u2").map((e) => e.id)).toEqual([
      "u1",
      ...BROKEN_LINES.map((_, i) => `line-${i + 2}`),
      "u2",
    ]);
    expect(session.buildSessionContext("u2").messages.map((m) => m.content)).toEqual([
      "first",
      "second",
    ]);
  });

  it("keeps every broken line of a Codex file as a raw entry, the rest imported", async () => {
    const path = await file(
      "codex-broken.jsonl",
      [
        cx("session_meta", { id: "c1" }),
        ...BROKEN_LINES,
        cx("response_item", { type: "message", role: "user", content: "hi" }),
      ].join("\n"),
    );
    const log = await readCodexFile(path);
    expect(log.report.raw).toBe(BROKEN_LINES.length);
    expect(log.entries.at(-1)).toMatchObject({ type: "message" });
  });

  it("reports a torn last line as torn and keeps it", async () => {
    const path = await file(
      "cc-torn.jsonl",
      `${cc("u1", null, "first")}\n${cc("u2", "u1", "second").slice(0, 40)}`,
    );
    const [log] = await readClaudeCodeFile(path);
    expect(log?.report.issues).toEqual([
      { line: 2, reason: expect.stringMatching(/^torn last line: not JSON/) },
    ]);
  });

  it("refuses a binary file, an empty file, a folder, a missing file and a file of another format", async () => {
    const cases: [string, Promise<string>, string][] = [
      [
        "binary",
        file("binary.jsonl", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a, 0xff])),
        "import_binary",
      ],
      ["empty", file("empty.jsonl", ""), "import_empty"],
      ["blank", file("blank.jsonl", "\n\n  \n"), "import_empty"],
      [
        "folder",
        mkdir(join(dir, "folder.jsonl"), { recursive: true }).then(() => join(dir, "folder.jsonl")),
        "import_unreadable",
      ],
      ["missing", Promise.resolve(join(dir, "missing.jsonl")), "import_unreadable"],
      [
        "other",
        file("other.jsonl", '{"name":"pkg","version":"1.0.0"}\n{"a":1}\n'),
        "import_not_recognized",
      ],
    ];
    for (const [name, pathPromise, code] of cases) {
      const path = await pathPromise;
      for (const read of [() => readClaudeCodeFile(path), () => readCodexFile(path)]) {
        const error = await importError(read);
        expect({ name, code: error.code }).toEqual({ name, code });
        expect(error.message).toContain(path);
      }
    }
  });

  it("keeps lines of unknown versions and types as raw entries, never failing", async () => {
    const ccPath = await file(
      "cc-future.jsonl",
      [
        cc("u1", null, "hello", { version: "9.0.0" }),
        JSON.stringify({
          type: "hologram",
          uuid: "h1",
          parentUuid: "u1",
          sessionId: "s-hostile",
          version: "9.0.0",
        }),
        JSON.stringify({
          type: "assistant",
          uuid: "a1",
          parentUuid: "u1",
          message: { role: "assistant", content: { not: "an array" } },
        }),
      ].join("\n"),
    );
    const [log] = await readClaudeCodeFile(ccPath);
    expect(log?.report.raw).toBe(2);
    const codexPath = await file(
      "codex-future.jsonl",
      [
        cx("session_meta", { id: "c2", cli_version: "99.0.0" }),
        cx("thread_rollback", { turns: 2 }),
        cx("response_item", { type: "hologram" }),
      ].join("\n"),
    );
    const codex = await readCodexFile(codexPath);
    expect(codex.report.raw).toBe(2);
    expect(codex.header.importedFrom.version).toBe("99.0.0");
  });

  it("survives duplicate uuids, dangling parents, __proto__ keys, CRLF and invalid UTF-8", async () => {
    const path = await file(
      "cc-odd.jsonl",
      Buffer.concat([
        Buffer.from(
          [
            cc("u1", null, "one"),
            cc("u1", "u1", "same uuid again"),
            cc("u3", "nowhere", "dangling parent"),
            '{"type":"user","uuid":"u4","parentUuid":"u3","sessionId":"s-hostile","__proto__":{"polluted":true},"message":{"role":"user","content":[{"type":"text","text":"x","__proto__":{"polluted":true}}]}}',
          ].join("\r\n"),
        ),
        Buffer.from("\r\n"),
        Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0x0a]), // {"\xc3("} — invalid UTF-8
      ]),
    );
    const [log] = await readClaudeCodeFile(path);
    expect(log?.entries.map((e) => e.id).slice(0, 4)).toEqual(["u1", "u1~2", "u3", "u4"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    const session = await openImported(defined(log));
    expect(session.getEntry("u3")?.parentId).toBe("u1~2");
    expect(log?.report.raw).toBe(1);
  });

  it("imports a deeply nested value without overflowing the stack, or keeps the line raw", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const path = await file(
      "cc-deep.jsonl",
      `${cc("u1", null, "first")}\n{"type":"user","uuid":"u2","parentUuid":"u1","sessionId":"s-hostile","message":{"role":"user","content":[{"type":"text","text":"x","deep":${deep}}]}}\n`,
    );
    const [log] = await readClaudeCodeFile(path);
    const store = new MemorySessionStore();
    await expect(importIntoStore(store, defined(log))).resolves.toMatchObject({
      status: "created",
    });
  });

  it("keeps a line longer than the limit out, as a raw entry that says so", async () => {
    const path = await file(
      "cc-long.jsonl",
      `${cc("u1", null, "x".repeat(3 * 1024 * 1024))}\n${cc("u2", null, "short")}\n`,
    );
    const [log] = await readClaudeCodeFile(path, { maxLineBytes: 1024 * 1024 });
    expect(log?.report.issues).toEqual([
      { line: 1, reason: "line longer than the largest line kept" },
    ]);
    expect(log?.entries.map((e) => e.id)).toEqual(["line-1", "u2"]);
  });

  it("streams a 100 MB file: the heap grows by less than the file", async () => {
    const path = join(dir, "cc-100mb.jsonl");
    const out = createWriteStream(path);
    const chunk = "y".repeat(100 * 1024);
    let parent: string | null = null;
    for (let i = 0; i < 1000; i++) {
      const line = `${cc(`u${i}`, parent, `tool output ${i}: ${chunk}`)}\n`;
      parent = `u${i}`;
      if (!out.write(line)) await once(out, "drain");
    }
    out.end();
    await once(out, "finish");
    let peak = 0;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }, 5);
    const before = process.memoryUsage().heapUsed;
    const [log] = await readClaudeCodeFile(path);
    clearInterval(timer);
    expect(log?.report.entries).toBe(1000);
    expect(log?.report.raw).toBe(0);
    // The entries keep the text (about 100 MB as one-byte strings); the file's bytes are never held whole on top.
    expect(peak - before).toBeLessThan(400 * 1024 * 1024);
  });
});
