import type { CliContext } from "../cli-context.js";

/** Starts the interactive app. */
export async function startInteractive(context: CliContext): Promise<number> {
  context.io.stderr.write("arbor: the interactive app is coming soon\n");
  return 1;
}
