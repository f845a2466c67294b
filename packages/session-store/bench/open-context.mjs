// Cases 1–3: open a session file and build the context of its leaf, Arbor vs pi.

import { openSessionFile } from "@arbor/session-store";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { median, timeAlternating } from "./timing.mjs";

/** Opens read-only and builds the context; returns the number of context messages. */
export async function arborOpenContext(path) {
  const session = await openSessionFile(path, { readOnly: true });
  const count = session.buildSessionContext().messages.length;
  await session.close();
  return count;
}

/** pi's way: `SessionManager.open` reads and indexes the file, then the context. */
export function piOpenContext(path) {
  return SessionManager.open(path).buildSessionContext().messages.length;
}

/**
 * Times open + context over a set of files (summed per run), Arbor on the originals and pi
 * on copies, and checks both give contexts of the same length. `pairedRatios` holds pi / Arbor
 * of each round.
 * @param {{ arborFiles: string[], piFiles: string[], runs: number, warmup?: number }} options
 */
export async function measureOpenContext({ arborFiles, piFiles, runs, warmup = 1 }) {
  const mismatches = [];
  for (let i = 0; i < arborFiles.length; i++) {
    const [ours, theirs] = [await arborOpenContext(arborFiles[i]), piOpenContext(piFiles[i])];
    if (ours !== theirs) mismatches.push(`${arborFiles[i]}: Arbor ${ours} messages, pi ${theirs}`);
  }
  const times = await timeAlternating(
    {
      arbor: async () => {
        for (const path of arborFiles) await arborOpenContext(path);
      },
      pi: () => {
        for (const path of piFiles) piOpenContext(path);
      },
    },
    { runs, warmup },
  );
  // The two sides of a round ran back to back, so their ratio shows how much the machine's
  // load moved the comparison from round to round.
  const pairedRatios = times.pi.map((piMs, i) => piMs / times.arbor[i]);
  return { arborMs: median(times.arbor), piMs: median(times.pi), pairedRatios, mismatches };
}
