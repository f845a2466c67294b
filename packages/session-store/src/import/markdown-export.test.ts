import { describe, expect, it } from "vitest";
import { readClaudeCodeFile } from "./claude-code-reader.js";
import { readCodexFile } from "./codex-reader.js";
import { defined, importFixture, openImported } from "./import-test-util.js";
import { exportMarkdown } from "./markdown-export.js";

async function claudeSession() {
  return openImported(
    defined(
      (await readClaudeCodeFile(importFixture("generated", "claude-code-every-line.jsonl")))[0],
    ),
  );
}

describe("exportMarkdown", () => {
  it("writes one path as a readable transcript", async () => {
    const session = await claudeSession();
    const file = importFixture("generated", "claude-code-every-line.jsonl");
    expect(
      exportMarkdown(session, { leafId: "a-4" }).replace(file, "<file>"),
    ).toMatchInlineSnapshot(`
      "# Build speed

      - Session: \`claude-code-6a3c1f0e-0000-4000-8000-000000000001\`
      - Started: 2025-10-01T10:00:01.000Z
      - Folder: \`/home/demo\`
      - Imported from claude-code: \`<file>\`

      ### User

      Why is the build slow?

      ### Assistant (claude-sonnet-4-5-20250929)

      <details><summary>Thinking</summary>

      \`\`\`
      The user asks about build speed. Check tsconfig.
      \`\`\`

      </details>

      Let me look at the config.

      **Tool call** \`Read\` (toolu_01)

      \`\`\`json
      {
        "file_path": "/home/demo/tsconfig.json"
      }
      \`\`\`

      **Tool call** \`Bash\` (toolu_02)

      \`\`\`json
      {
        "command": "npm run build"
      }
      \`\`\`

      #### Tool result: \`Read\` (toolu_01)

      \`\`\`
      {
        "compilerOptions": {"incremental": false}
      }
      \`\`\`

      #### Tool result: \`Bash\` (toolu_02) — error

      \`\`\`
      error TS2307: Cannot find module
      \`\`\`

      ### Assistant (claude-sonnet-4-5-20250929)

      Incremental builds are off; turn them on.
      "
    `);
  });

  it("with allBranches, writes each other branch after the fork under its own heading", async () => {
    const session = await claudeSession();
    const text = exportMarkdown(session, { allBranches: true, leafId: "u-3a" });
    expect(text.match(/^## .*$/gm)).toEqual([
      "## Current branch",
      "## Branch 2 (forks after `a-4`)",
    ]);
    const [current, other] = text.split("## Branch 2");
    expect(current).toContain("Use opus for this one.");
    expect(current).not.toContain("Look at this screenshot instead.");
    expect(other).toContain("Look at this screenshot instead.");
    expect(other).toContain("### Compaction");
    expect(other).toContain("*Model: anthropic/claude-opus-4-1-20250805*");
    expect(other).not.toContain("Why is the build slow?"); // the shared part is written once
  });

  it("leaves out blank text blocks, so no run of empty lines follows a heading", async () => {
    const session = await openImported(
      defined(
        (
          await readClaudeCodeFile(
            importFixture("real", "claude-code", "marot-spotter", "tool_heavy.jsonl"),
          )
        )[0],
      ),
    );
    const text = exportMarkdown(session, { allBranches: true });
    expect(text).not.toMatch(/^#{1,4} .*\n\n\n/m);
    expect(text).toContain(
      "### Assistant (claude-opus-4-6)\n\n<details><summary>Thinking</summary>",
    );
  });

  it("fences tool output that holds backtick fences so it cannot close the block early", async () => {
    const session = await openImported(
      await readCodexFile(importFixture("generated", "codex-every-line.jsonl")),
    );
    const text = exportMarkdown(session);
    expect(text).toContain("### Compaction\n\n> Summary: listed files");
    expect(text).toContain(
      "#### Tool result: `shell` (call_bad) — error\n\n```\ncommand failed\n```",
    );
    const tricky = {
      ...session,
      getHeader: () => session.getHeader(),
      getBranch: () => [
        {
          type: "message",
          id: "x",
          parentId: null,
          timestamp: "2025-01-01T00:00:00.000Z",
          message: {
            role: "toolResult",
            toolCallId: "c",
            toolName: "cat",
            content: [{ type: "text", text: "````\n# not a heading\n````" }],
          },
        },
      ],
      getLeafId: () => "x",
      getEntries: () => [],
      getChildren: () => [],
      getTitle: () => "t",
    };
    const out = exportMarkdown(tricky);
    expect(out).toContain("`````\n````\n# not a heading\n````\n`````");
  });
});
