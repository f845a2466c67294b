import { describe, expect, it } from "vitest";
import { pgInfo, storeOn } from "./helpers/stores.js";

describe.skipIf(!pgInfo)("reading a long PostgreSQL session", () => {
  it("hands back every entry in append order across chunks, with others' rows interleaved on disk", async () => {
    const store = await storeOn();
    const sessions = await Promise.all(
      Array.from({ length: 3 }, (_, s) => store.create({ cwd: `/order${s}` })),
    );
    // Three sessions appending at once interleave their rows in the heap; 700 entries each
    // span three chunks of the read, the last one partial.
    for (let i = 0; i < 700; i += 50) {
      await Promise.all(
        sessions.map((session, s) =>
          Promise.all(
            Array.from({ length: 50 }, (_, j) =>
              session.appendMessage({ role: "user", content: `s${s} m${i + j}`, timestamp: i + j }),
            ),
          ),
        ),
      );
    }
    for (const session of sessions) await session.close();
    for (const [s, session] of sessions.entries()) {
      const reopened = await store.open(session.id, { readOnly: true });
      const texts = reopened
        .buildSessionContext()
        .messages.map((message) => ("content" in message ? message.content : undefined));
      expect(texts).toEqual(Array.from({ length: 700 }, (_, i) => `s${s} m${i}`));
      await reopened.close();
    }
    await store.close();
  });
});
