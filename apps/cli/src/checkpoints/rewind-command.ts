import { AgentHost, defineAgent, type Model } from "@arbor/orchestration";
import {
  CHECKPOINT_CUSTOM_TYPE,
  isEntryOfType,
  openSessionFile,
  readArborEntry,
} from "@arbor/session-store";
import type { SessionCheckpoints } from "@arbor/workspace";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { CliSessionStore } from "../host/cli-session-store.js";
import { terminalSafe } from "../output/index.js";
import { sessionDirFor } from "../paths.js";
import { asCliError, chooseSession } from "../session-locator.js";
import { openCliCheckpoints } from "./cli-checkpoints.js";
import { rewindLines } from "./rewind-text.js";

/**
 * `arbor rewind [--code|--conversation|--both] [--dry-run] [-s session] [entry]`: brings the
 * newest session of this folder (or `-s`'s) back to an entry — by default the state before
 * its last prompt — and prints every path it changed or, dry, would change.
 */
export async function rewindCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const to = args.rewindTo ?? "both";
  const notices: string[] = [];
  const checkpoints =
    to === "conversation"
      ? undefined
      : await openCliCheckpoints(paths, io.cwd, io.env, (message) => notices.push(message));
  if (to !== "conversation" && checkpoints === undefined) {
    throw new CliError(notices[0] ?? "checkpoints are off here.", {
      hint: "Rewind the conversation only with --conversation.",
    });
  }
  const host = await openRewindHost(context, checkpoints);
  try {
    const entryId = resolveEntry(host, args.positionals[0]);
    const rewind = await host.rewind(entryId, { to, ...(args.dryRun ? { dryRun: true } : {}) });
    for (const line of rewindLines(rewind)) printer.out(`${line}\n`);
    return 0;
  } catch (error) {
    if (error instanceof Error && "code" in error && error.code === "no_checkpoint") {
      throw new CliError(error.message, { hint: "Use --conversation to move the leaf only." });
    }
    throw error;
  } finally {
    await host.close();
  }
}

/**
 * `arbor checkpoints [session]`: the checkpoints of the newest session of this folder (or
 * the one named), oldest first, each with the files it changed.
 */
export async function checkpointsCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const named = args.positionals[0] ?? args.session;
  const choice = await chooseSession(paths, io.cwd, {
    continue: true,
    ...(named !== undefined ? { session: named } : {}),
  });
  if (choice.sessionId === undefined) {
    throw new CliError("there is no session of this folder.", {
      hint: "Name one: arbor checkpoints <id> (ids: arbor sessions list).",
    });
  }
  const session = await openSessionFile(choice.sessionId, { readOnly: true }).catch(
    (error: unknown) => {
      throw asCliError(error);
    },
  );
  try {
    let count = 0;
    for (const entry of session.getEntries()) {
      const data = readArborEntry(entry, CHECKPOINT_CUSTOM_TYPE);
      if (!data) continue;
      count++;
      const total = data.changedCount ?? data.changed.length;
      const files = data.changed.map((path) => terminalSafe(path)).join(", ");
      const more = total > data.changed.length ? ` … and ${total - data.changed.length} more` : "";
      printer.out(
        `${entry.id}  ${entry.timestamp.slice(0, 19).replace("T", " ")}  ${terminalSafe(data.reason ?? "checkpoint").padEnd(13)}  ${total} file${total === 1 ? "" : "s"}${total > 0 ? `: ${files}${more}` : ""}\n`,
      );
    }
    if (count === 0) printer.out("no checkpoints in this session\n");
    return 0;
  } finally {
    await session.close();
  }
}

/**
 * An agent host on the newest session of this folder (or `-s`'s) that asks no model: it
 * only rewinds and forks. A session another arbor holds is refused (its lock).
 */
export async function openRewindHost(
  context: CliContext,
  checkpoints: SessionCheckpoints | undefined,
): Promise<AgentHost> {
  const { io, args, paths } = context;
  const choice = await chooseSession(paths, io.cwd, {
    continue: true,
    ...(args.session !== undefined ? { session: args.session } : {}),
  });
  if (choice.sessionId === undefined) {
    throw new CliError("there is no session of this folder.", {
      hint: "Name one with -s <id> (ids: arbor sessions list).",
    });
  }
  return AgentHost.open({
    store: new CliSessionStore({
      sessionsRoot: paths.sessionsRoot,
      sessionDirFor: (cwd) => sessionDirFor(paths, cwd),
    }),
    sessionId: choice.sessionId,
    agent: defineAgent({ name: "arbor-rewind", models: ["arbor/offline"] }),
    models: () => OFFLINE_MODEL,
    ...(checkpoints ? { checkpoints } : {}),
  }).catch((error: unknown) => {
    throw asCliError(error);
  });
}

/** The entry named (an id or a unique prefix), or by default the state before the last prompt. */
export function resolveEntry(host: AgentHost, given: string | undefined): string | null {
  const session = host.session;
  if (given === undefined) {
    const lastPrompt = session
      .getBranch()
      .findLast((entry) => isEntryOfType(entry, "message") && entry.message.role === "user");
    if (lastPrompt === undefined) {
      throw new CliError("the session has no prompt to go back before.", { exitCode: 2 });
    }
    return lastPrompt.parentId;
  }
  if (session.getEntry(given)) return given;
  const matches = session.getEntries().filter((entry) => entry.id.startsWith(given));
  if (matches.length === 1) return (matches[0] as { id: string }).id;
  throw new CliError(
    matches.length === 0
      ? `there is no entry "${terminalSafe(given)}" in the session.`
      : `"${terminalSafe(given)}" matches ${matches.length} entries.`,
    { hint: "arbor checkpoints lists the checkpoint entries; /tree shows them all.", exitCode: 2 },
  );
}

/** The model of a host that only rewinds: it is never asked anything. */
const OFFLINE_MODEL: Model = {
  info: {
    id: "offline",
    provider: "arbor",
    api: "openai-chat",
    contextWindow: 1_000_000,
    maxOutputTokens: 1_000,
    pricing: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    capabilities: { tools: true, images: false, reasoning: false },
  },
  stream() {
    throw new CliError("arbor rewind asks no model anything.");
  },
};
