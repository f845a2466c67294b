/*
 * A stand-in for a shell tool in the server's extension tests: `bash` echoes the command it
 * was given instead of running it, so the permission gate has something to guard.
 */
import type { ExtensionAPI } from "@arbor/extensions-api";
import { z } from "zod";

export default function fakeShell(arbor: ExtensionAPI): void {
  arbor.registerTool({
    name: "bash",
    description: "Runs a shell command (a fake: it only echoes the command)",
    parameters: z.object({ command: z.string() }),
    execute: async ({ command }, ctx) => {
      ctx.onUpdate({ content: `starting ${command}`, details: { step: 1 } });
      return { content: `ran: ${command}` };
    },
  });
}
