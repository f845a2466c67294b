import { execFile } from "node:child_process";
import { mkdir, realpath, stat } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { terminalSafe } from "../output/index.js";
import { openCliCheckpoints } from "./cli-checkpoints.js";
import { openRewindHost, resolveEntry } from "./rewind-command.js";

const run = promisify(execFile);

/**
 * `arbor fork [-s session] [--worktree <dir>] [entry]`: forks the newest session of this
 * folder (or `-s`'s) at an entry; with `--worktree`, the entry's files go into a new git
 * worktree (a plain folder outside a repository) so both branches can be worked on at once.
 */
export async function forkCommand(context: CliContext): Promise<number> {
  const { io, args, paths, printer } = context;
  const notices: string[] = [];
  const checkpoints =
    args.worktree === undefined
      ? undefined
      : await openCliCheckpoints(paths, io.cwd, io.env, (message) => notices.push(message));
  if (args.worktree !== undefined && checkpoints === undefined) {
    throw new CliError(notices[0] ?? "checkpoints are off here.", {
      hint: "Fork without --worktree to copy the conversation only.",
    });
  }
  const host = await openRewindHost(context, checkpoints);
  try {
    const entryId =
      args.positionals[0] === undefined
        ? host.session.getLeafId()
        : resolveEntry(host, args.positionals[0]);
    if (entryId === null) throw new CliError("the session is empty; there is nothing to fork.");
    let files: string | undefined;
    if (args.worktree !== undefined && checkpoints) {
      const dir = resolve(io.cwd, args.worktree);
      if (
        await stat(dir).then(
          () => true,
          () => false,
        )
      ) {
        throw new CliError(`${terminalSafe(dir)} exists already.`, {
          hint: "Name a folder that does not exist yet; arbor fork creates it.",
          exitCode: 2,
        });
      }
      const target = await prepareWorktree(io.cwd, dir, io.env);
      const done = await checkpoints.materializeAt(host.session, entryId, target.workspace, {
        removable: target.tracked,
      });
      files = `${done.written.length} file${done.written.length === 1 ? "" : "s"} of ${entryId} in ${terminalSafe(target.workspace)}${target.git ? " (a git worktree)" : ""}`;
    }
    const forked = await host.fork(entryId);
    printer.out(`forked ${forked.id} from ${entryId}\n`);
    if (files !== undefined) {
      printer.out(`${files}\n`);
      printer.out(
        `continue there: cd ${terminalSafe(resolve(io.cwd, args.worktree ?? "."))} && arbor -s ${forked.id}\n`,
      );
    }
    return 0;
  } finally {
    await host.close();
  }
}

/**
 * Makes the fork's folder: a detached git worktree of the repository the working folder is
 * in (the working folder's place inside it kept), else a plain folder.
 */
async function prepareWorktree(
  cwd: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ workspace: string; tracked: string[]; git: boolean }> {
  const gitEnv = { ...env, GIT_TERMINAL_PROMPT: "0" };
  const top = await run("git", ["rev-parse", "--show-toplevel"], { cwd, env: gitEnv }).then(
    (out) => out.stdout.trim(),
    () => undefined,
  );
  if (top === undefined) {
    await mkdir(dir, { recursive: true });
    return { workspace: dir, tracked: [], git: false };
  }
  await run("git", ["worktree", "add", "--detach", "--quiet", dir, "HEAD"], {
    cwd,
    env: gitEnv,
  }).catch((error: { stderr?: string }) => {
    throw new CliError(
      `git could not add a worktree at ${terminalSafe(dir)}: ${terminalSafe(error.stderr?.trim() ?? "")}`,
    );
  });
  const workspace = join(dir, relative(await realpath(top), await realpath(cwd)));
  await mkdir(workspace, { recursive: true });
  const listed = await run("git", ["ls-files", "-z"], {
    cwd: workspace,
    env: gitEnv,
    maxBuffer: 1 << 28,
  });
  const tracked = listed.stdout.split("\0").filter((path) => path !== "");
  return { workspace, tracked, git: true };
}
