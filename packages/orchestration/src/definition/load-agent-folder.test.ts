import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadAgentFolder } from "./load-agent-folder.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-agent-folder-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const agent = (front: string, body = "You help.") => `---\n${front}\n---\n${body}\n`;

describe("loadAgentFolder", () => {
  it("loads the good files and reports each broken one by file, key and reason", async () => {
    await writeFile(join(dir, "b-reviewer.md"), agent("models: [openai/gpt-4.1]"));
    await writeFile(join(dir, "a-tester.md"), agent("name: tester\nmodels: [anthropic]"));
    await writeFile(join(dir, "c-typo.md"), agent("modles: [openai/x]"));
    await writeFile(join(dir, "d-empty.md"), agent("models: [a]", ""));
    await writeFile(join(dir, "e-binary.md"), Uint8Array.from([0, 1, 2, 3]));
    await writeFile(join(dir, "notes.txt"), "not an agent");
    await mkdir(join(dir, "sub.md"));
    await symlink(join(dir, "loop.md"), join(dir, "loop.md"));
    const { agents, files, problems } = await loadAgentFolder(dir);
    expect(agents.map((definition) => definition.name)).toEqual(["tester", "b-reviewer"]);
    expect(files.map((file) => file.slice(dir.length + 1))).toEqual([
      "a-tester.md",
      "b-reviewer.md",
    ]);
    expect(problems.map((problem) => [problem.file.slice(dir.length + 1), problem.key])).toEqual([
      ["c-typo.md", "modles"],
      ["d-empty.md", "(body)"],
      ["e-binary.md", "(file)"],
      ["loop.md", "(file)"],
    ]);
    expect(problems[3]?.reason).toMatch(/symbolic link loop/);
  });

  it("uses neither of two files defining one name, and says which", async () => {
    await writeFile(join(dir, "one.md"), agent("name: twin\nmodels: [a]"));
    await writeFile(join(dir, "two.md"), agent("name: twin\nmodels: [b]"));
    await writeFile(join(dir, "solo.md"), agent("models: [c]"));
    const { agents, problems } = await loadAgentFolder(dir);
    expect(agents.map((definition) => definition.name)).toEqual(["solo"]);
    expect(problems.map((problem) => problem.message)).toEqual([
      expect.stringMatching(/one\.md: name: the name "twin" is also defined by .*two\.md/),
      expect.stringMatching(/two\.md: name: the name "twin" is also defined by .*one\.md/),
    ]);
  });

  it("reads at most maxFiles files and reports the rest; a missing folder has no agents", async () => {
    for (let i = 0; i < 5; i++) await writeFile(join(dir, `agent-${i}.md`), agent("models: [a]"));
    const { agents, problems } = await loadAgentFolder(dir, { maxFiles: 3 });
    expect(agents).toHaveLength(3);
    expect(problems.map((problem) => problem.reason)).toEqual([
      "not read: the folder holds more than 3 agent files",
      "not read: the folder holds more than 3 agent files",
    ]);
    expect(await loadAgentFolder(join(dir, "missing"))).toEqual({
      agents: [],
      files: [],
      problems: [],
    });
  });

  it("names a folder that is a file", async () => {
    await writeFile(join(dir, "file"), "x");
    await expect(loadAgentFolder(join(dir, "file"))).rejects.toMatchObject({
      code: "invalid_agent_definition",
      key: "(folder)",
    });
  });
});
