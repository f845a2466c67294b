/*
 * Asks the client each kind of question from a command, and reports the answers as a
 * notification: for the server's UI tests of confirm, input and dismiss.
 */
import type { ExtensionAPI } from "@arbor/extensions-api";

export default function asksEverything(arbor: ExtensionAPI): void {
  arbor.registerCommand("ask", {
    description: "Asks a confirm and an input question",
    handler: async (_args, ctx) => {
      const sure = await ctx.ui.confirm("Sure?", "This asks twice");
      const name = await ctx.ui.input("Your name", "a name");
      ctx.ui.notify(`sure=${String(sure)} name=${String(name)} hasUI=${String(ctx.hasUI)}`);
    },
  });
  arbor.registerCommand("custom", {
    description: "Shows a custom component (not possible over HTTP)",
    handler: async (_args, ctx) => {
      const value = await ctx.ui.custom<number>({ render: () => ["pick"] });
      ctx.ui.notify(`custom=${String(value)}`);
    },
  });
}
