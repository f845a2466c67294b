import { listSessions } from "@arbor/session-store";
import { render } from "ink";
import { withoutChildSessions } from "../agent-tree/child-session-filter.js";
import type { CliIo } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ArborPaths, sessionDirFor } from "../paths.js";
import { SessionPicker } from "./session-picker.js";

/**
 * `arbor -r`: shows this directory's sessions in a picker before the app starts and
 * resolves with the file of the one picked, or undefined when the user leaves with Esc.
 * @throws CliError when the directory has no sessions yet
 */
export async function pickSession(
  paths: ArborPaths,
  io: Pick<CliIo, "cwd">,
): Promise<string | undefined> {
  // An agent file's child runs are opened from their parent's /tree, not resumed alone.
  const sessions = await withoutChildSessions(await listSessions(sessionDirFor(paths, io.cwd)));
  if (sessions.length === 0) {
    throw new CliError("there are no sessions in this directory to resume.", {
      hint: 'Start one with "arbor"; "arbor sessions list" shows the sessions of all directories.',
    });
  }
  let picked: string | undefined;
  const app = render(
    <SessionPicker
      sessions={sessions}
      currentPath=""
      title="Resume a session of this directory"
      onSelect={(path) => {
        picked = path;
        app.unmount();
      }}
      onCancel={() => app.unmount()}
    />,
    { exitOnCtrlC: true },
  );
  await app.waitUntilExit();
  app.clear();
  return picked;
}
