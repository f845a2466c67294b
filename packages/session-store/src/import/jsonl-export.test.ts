import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import { defined, importFixture, openImported } from "./import-test-util.js";
import type { ImportedLog } from "./imported-log.js";
import { exportJsonl } from "./jsonl-export.js";
import { readOpencodeStorage } from "./opencode-reader.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-jsonl-export-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sources: [string, () => Promise<ImportedLog>][] = [
  [
    "Claude Code (generated)",
    async () =>
      defined(
        (await readClaudeCodeFile(importFixture("generated", "claude-code-every-line.jsonl")))[0],
      ),
  ],
  [
    "Claude Code (real, compacted)",
    async () =>
      defined(
        (
          await readClaudeCodeFile(
            importFixture(
              "real",
              "claude-code",
              "marot-spotter",
              "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl",
            ),
          )
        )[0],
      ),
  ],
  ["Codex (generated)", () => readCodexFile(importFixture("generated", "codex-every-line.jsonl"))],
  [
    "opencode (generated)",
    async () =>
      defined((await readOpencodeStorage(importFixture("generated", "opencode-storage")))[0]),
  ],
];

describe("exportJsonl", () => {
  it.each(sources)(
    "writes an imported %s session that pi opens with the same context",
    async (name, read) => {
      const session = await openImported(await read());
      const path = join(dir, `${name.replace(/\W+/g, "-")}.jsonl`);
      await writeFile(path, exportJsonl(session));
      const pi = SessionManager.open(path);
      expect(pi.buildSessionContext()).toEqual(session.buildSessionContext());
      expect(pi.getBranch().map((e) => e.id)).toEqual(session.getBranch().map((e) => e.id));
    },
  );

  it("ends with a leaf pointer when the leaf is not the last entry, so pi lands on it", async () => {
    const log = defined(
      (await readClaudeCodeFile(importFixture("generated", "claude-code-every-line.jsonl")))[0],
    );
    const session = await openImported(log);
    const text = exportJsonl({ ...pick(session), getLeafId: () => "u-3a" });
    const path = join(dir, "leaf.jsonl");
    await writeFile(path, text);
    const pi = SessionManager.open(path);
    expect(pi.buildSessionContext()).toEqual(session.buildSessionContext("u-3a"));
    expect(text.trimEnd().split("\n").at(-1)).toContain('"type":"leaf"');
  });
});

function pick(session: Awaited<ReturnType<typeof openImported>>) {
  return {
    getHeader: () => session.getHeader(),
    getEntries: () => session.getEntries(),
    getLeafId: () => session.getLeafId(),
  };
}
