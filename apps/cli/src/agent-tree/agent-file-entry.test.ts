import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  AGENT_FILE_CUSTOM_TYPE,
  rememberAgentFile,
  rememberedAgentFile,
} from "./agent-file-entry.js";

describe("the agent file a session remembers", () => {
  it("is the newest valid entry; the same file is not stored twice; other or damaged entries are skipped", async () => {
    const session = await new MemorySessionStore().create({ cwd: "/project" });
    expect(rememberedAgentFile(session)).toBeUndefined();
    expect(await rememberAgentFile(session, "/project/agents/a.md")).toBeDefined();
    expect(await rememberAgentFile(session, "/project/agents/a.md")).toBeUndefined();
    await session.appendCustomEntry(AGENT_FILE_CUSTOM_TYPE, { file: 42 });
    await session.appendCustomEntry(AGENT_FILE_CUSTOM_TYPE, null);
    await session.appendCustomEntry("someone.else", { file: "/elsewhere.md" });
    expect(rememberedAgentFile(session)).toBe("/project/agents/a.md");
    await rememberAgentFile(session, "/project/agents/b.md");
    expect(rememberedAgentFile(session)).toBe("/project/agents/b.md");
    const stored = session
      .getEntries()
      .filter((entry) => entry.type === "custom")
      .map((entry) => (entry as { data?: unknown }).data);
    expect(stored).toContainEqual({ file: "/project/agents/a.md" });
    expect(stored).toContainEqual({ file: "/project/agents/b.md" });
    await session.close();
  });
});
