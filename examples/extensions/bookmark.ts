/*
 * `/bookmark [name]`: labels the current point of the conversation, so it can be found
 * (and returned to) in the session tree. Without a name the label is "bookmark".
 *
 * Load it with `arbor --extension examples/extensions/bookmark.ts`, or copy it into
 * `.arbor/extensions/` of a project or of your home.
 */
import type { ExtensionAPI, ReadonlySessionView } from "@arbor/extensions-api";

/** The label used when `/bookmark` is given no name. */
const DEFAULT_LABEL = "bookmark";

export default function bookmark(arbor: ExtensionAPI): void {
  arbor.registerCommand("bookmark", {
    description: "Label the current point of the conversation: /bookmark [name]",
    handler: async (args, ctx) => {
      const target = currentPoint(ctx.session);
      if (target === undefined)
        throw new Error("nothing to bookmark yet: the session has no messages on this branch");
      await arbor.setLabel(target, args || DEFAULT_LABEL);
    },
  });
}

/**
 * The newest entry of the branch that is not itself a label: setting a label appends a
 * `label` entry at the leaf, and bookmarking twice must not label the first bookmark.
 */
function currentPoint(session: ReadonlySessionView): string | undefined {
  const branch = session.getBranch();
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index];
    if (entry && entry.type !== "label") return entry.id;
  }
  return undefined;
}
