import { existsSync } from "node:fs";
import type { RenderCustomMessage } from "@arbor/html-export";
import { guardExtensionFailures } from "@arbor/orchestration";
import { loadProjectExtensions } from "../agent/agent-factory.js";
import type { CliContext } from "../cli-context.js";
import { resolveProjectTrust, trustMessages } from "../trust/index.js";

/** The renderer of an export, and what to call once the page is written. */
export interface ExportRenderers {
  renderCustomMessage: RenderCustomMessage;
  /** Stops attributing stray extension failures to the export. */
  release(): void;
}

/**
 * The message renderers (`registerMessageRenderer`) of the extensions configured for the
 * session's project, for the HTML export: those of the user's home always, the project's
 * own (`.arbor/extensions/`) only when the project is trusted (remembered, `--trust-project`
 * or `ARBOR_TRUST_PROJECT=1`; the export never asks). Extensions that fail to load are
 * reported on stderr and skipped; the page then shows their messages' default view.
 * @param projectRoot - the session's working folder (its header's `cwd`)
 */
export async function exportRenderers(
  context: CliContext,
  projectRoot: string | undefined,
): Promise<ExportRenderers> {
  const { io, args, paths, printer } = context;
  const report = (message: string) => printer.err(`[${message}]\n`);
  const root = projectRoot && existsSync(projectRoot) ? projectRoot : io.cwd;
  const trust = await resolveProjectTrust({
    projectRoot: root,
    arborDir: paths.arborDir,
    flag: args.trustProject,
    env: io.env,
  });
  for (const message of trustMessages(trust)) report(message);
  const unguard = guardExtensionFailures(process);
  const runner = await loadProjectExtensions(root, paths.home, report, {
    includeProject: trust.state === "trusted",
  });
  return {
    renderCustomMessage: (message) => runner.renderForExport(message),
    release: unguard,
  };
}
