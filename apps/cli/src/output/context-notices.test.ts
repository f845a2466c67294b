import { describe, expect, it } from "vitest";
import { contextNoticeFor } from "./context-notices.js";

const target = { provider: "alpha", model: "small" };

describe("contextNoticeFor", () => {
  it("says why an answer comes without tools, and when the context was compacted", () => {
    expect(
      contextNoticeFor({
        type: "context_guard",
        turnIndex: 3,
        action: "force_final",
        estimate: 152_000,
        limit: 150_976,
        target,
      } as never),
    ).toEqual({
      level: "warning",
      text: "Context limit reached (about 152,000 tokens, limit 150,976) and compaction could not free enough: this answer is the last of the prompt, without tools. Start a new session, or compact with instructions of what to keep.",
    });
    expect(
      contextNoticeFor({
        type: "compaction",
        turnIndex: 2,
        reason: "threshold",
        status: "compacted",
        tokensBefore: 140_000,
      } as never),
    ).toEqual({
      level: "info",
      text: "Compacted the earlier conversation (140,000 tokens) into a summary.",
    });
    expect(
      contextNoticeFor({
        type: "compaction",
        reason: "threshold",
        status: "nothing_to_compact",
      } as never),
    ).toBeUndefined();
  });
});
