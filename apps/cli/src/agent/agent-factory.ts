import type { TtsrRule } from "@arbor/orchestration";
import {
  type ExtensionErrorEvent,
  ExtensionRunner,
  loadRules,
  type RuleLoadWarning,
} from "@arbor/orchestration";

/** The stream rules of a project: those that load, and why the others did not. */
export interface ProjectRules {
  rules: TtsrRule[];
  warnings: RuleLoadWarning[];
}

/** Loads the stream rules of the project and of the user's home directory. */
export function loadProjectRules(projectRoot: string, homeDir: string): Promise<ProjectRules> {
  return loadRules({ projectRoot, homeDir });
}

/** Which extensions {@link loadProjectExtensions} may load. */
export interface ExtensionTrust {
  /** Whether the project's own `.arbor/extensions/` load: only when the user trusts it. */
  includeProject: boolean;
}

/**
 * Loads the extensions of the user's home and, when `trust.includeProject`, of the
 * project (`.arbor/extensions/`). A failing extension is reported through `onError` and
 * skipped; the others load.
 */
export async function loadProjectExtensions(
  projectRoot: string,
  homeDir: string,
  onError: (message: string) => void,
  trust: ExtensionTrust,
): Promise<ExtensionRunner> {
  const extensions = new ExtensionRunner({
    cwd: projectRoot,
    homeDir,
    includeProject: trust.includeProject,
    onError: (event: ExtensionErrorEvent) =>
      onError(`extension ${event.extensionName}: ${event.error}`),
  });
  await extensions.loadAll();
  return extensions;
}
