import { describe, expect, it } from "vitest";
import { MemorySessionStorage, Session, SessionReadOnlyError } from "../src/index.js";

/** A backend whose appends start failing on demand, as a full disk would. */
class FailingStorage extends MemorySessionStorage {
  failing = false;
  override async append(lines: readonly string[]): Promise<void> {
    if (this.failing) throw new Error("no space left on device");
    return super.append(lines);
  }
}

const user = (text: string) => ({ role: "user", content: text, timestamp: 1 });

describe("a write that fails", () => {
  it("rejects its append, and every later append says the session must be reopened", async () => {
    const storage = new FailingStorage();
    const session = await Session.open(storage, { create: true });
    const kept = await session.appendMessage(user("stored"));
    storage.failing = true;
    await expect(session.appendMessage(user("lost"))).rejects.toThrow("no space left on device");
    expect(() => session.appendMessage(user("refused"))).toThrow(SessionReadOnlyError);
    expect(() => session.appendMessage(user("refused"))).toThrow(/earlier write .* failed/);
    await session.flush();
    await session.close();

    const reopened = await Session.open(new MemorySessionStorage(storage.location), {
      readOnly: true,
    });
    expect(reopened.getEntries().map((entry) => entry.id)).toEqual([kept]);
  });
});
