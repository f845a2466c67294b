import {
  exportSessionToHtml,
  exportSessionTreeToHtml,
  readSessionSnapshot,
} from "@arbor/html-export";
import type { CliContext } from "../cli-context.js";
import type { ArborPaths } from "../paths.js";
import { asCliError, listAllSessions } from "../session-locator.js";
import { exportRenderers } from "./sessions-export-renderers.js";

/**
 * The HTML page of a session file, as `arbor sessions export` and `arbor export` write it:
 * custom messages through the renderers of the session's project's extensions, and with
 * `--with-children` the child sessions an orchestration started embedded in the page.
 */
export async function sessionHtmlPage(
  context: CliContext,
  path: string,
): Promise<{ id: string; html: string }> {
  const { io, args, paths } = context;
  const snapshot = await readSessionSnapshot(path).catch((error: unknown) => {
    throw asCliError(error);
  });
  const renderers = await exportRenderers(context, snapshot.header.cwd);
  try {
    const { renderCustomMessage } = renderers;
    const html = args.withChildren
      ? await exportSessionTreeToHtml(snapshot, {
          loadChild: await childSessionLoader(paths, io.cwd),
          renderCustomMessage,
        })
      : exportSessionToHtml(snapshot, { renderCustomMessage });
    return { id: snapshot.header.id, html };
  } finally {
    renderers.release();
  }
}

/**
 * Loads the child sessions an orchestration recorded, by exact id among Arbor's session
 * files (never by path or prefix: the ids come from the session's own entries).
 */
async function childSessionLoader(paths: ArborPaths, cwd: string) {
  const files = new Map((await listAllSessions(paths, cwd)).map((info) => [info.id, info.path]));
  return async (id: string) => {
    const file = files.get(id);
    return file === undefined ? undefined : readSessionSnapshot(file);
  };
}
