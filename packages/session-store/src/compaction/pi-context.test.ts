import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { piFixtureNames, piFixturesDir } from "../../test/pi-fixtures.js";
import { openSessionFile } from "../open.js";
import { planCompaction } from "./plan.js";

/*
 * A compaction planned here and stored on a pi fixture (which already holds compactions)
 * gives the context pi's own buildSessionContext gives for the same file, and moving the
 * leaf back to the entry before it restores the context from before.
 */
describe.each([...piFixtureNames("s1-"), ...piFixtureNames("v1-")])(
  "compacting pi fixture %s",
  (name) => {
    it("gives pi's context after the compaction, and the old one after undo", async () => {
      const dir = await mkdtemp(join(tmpdir(), "arbor-compaction-"));
      const path = join(dir, `${name}.jsonl`);
      await copyFile(join(piFixturesDir(), `${name}.jsonl`), path);
      const session = await openSessionFile(path);
      const before = session.buildSessionContext();
      const leafBefore = session.getLeafId();
      const plan = planCompaction(session.getBranch(), { keepRecentTokens: 200 });
      if (!plan) {
        // Only a leaf path too short to hold anything worth summarizing has no plan.
        expect(before.messages.length).toBeLessThan(3);
        await session.close();
        return;
      }
      const compactionId = await session.appendCompaction(
        "summary of the earlier conversation",
        plan.firstKeptEntryId,
        plan.tokensBefore,
        plan.fileOperations,
      );
      await session.close();

      const ours = await openSessionFile(path, { readOnly: true });
      const pi = SessionManager.open(path);
      expect(ours.getLeafId()).toBe(compactionId);
      const after = ours.buildSessionContext();
      expect(pi.buildSessionContext()).toEqual(after);
      expect(after.messages[0]).toMatchObject({
        role: "compactionSummary",
        summary: "summary of the earlier conversation",
      });
      expect(after.messages.length).toBeLessThanOrEqual(before.messages.length + 1);
      // Undo: the entry before the compaction is the old leaf, with the old context. Moving
      // the leaf there is stored: after a restart both Arbor and pi are back on it.
      expect(ours.buildSessionContext(leafBefore)).toEqual(before);
      const writable = await openSessionFile(path);
      await writable.branch(leafBefore as string);
      await writable.close();
      const reopened = await openSessionFile(path, { readOnly: true });
      expect(reopened.getLeafId()).toBe(leafBefore);
      expect(reopened.buildSessionContext()).toEqual(before);
      expect(SessionManager.open(path).buildSessionContext()).toEqual(before);
    });
  },
);
