import type { AgentResult } from "@arbor/orchestration";
import { FAILOVER_CUSTOM_TYPE, failoverRecordSchema, isArborEntry } from "@arbor/session-store";

/**
 * The exit codes of `arbor run`, one per kind of ending a script may want to tell apart.
 * They are listed in `arbor help run` and the CLI's README.
 */
export const RUN_EXIT_CODES = {
  /** The answer finished. */
  success: 0,
  /** Any other failure: the reason is printed on stderr. */
  failure: 1,
  /** A wrong command line (no prompt, unknown option). */
  usage: 2,
  /** The run reached its turn limit without an answer. */
  maxTurns: 3,
  /** The provider refused the credentials or the account is out of quota. */
  authOrQuota: 4,
  /** The user stopped the run (Ctrl+C / SIGINT), as shells report a SIGINT: 128 + 2. */
  userStop: 130,
} as const;

/** One of {@link RUN_EXIT_CODES}. */
export type RunExitCode = (typeof RUN_EXIT_CODES)[keyof typeof RUN_EXIT_CODES];

/** The model-error kinds that mean the credentials or the account need attention. */
const ACCOUNT_ERROR_KINDS: ReadonlySet<string> = new Set(["auth_error", "quota_exceeded"]);

/**
 * The exit code of a finished run.
 *
 * @param result what the run handed back
 * @param lastErrorKind the kind of the last failed model attempt of the run, if any
 */
export function runExitCode(
  result: Pick<AgentResult, "success" | "reason">,
  lastErrorKind?: string,
): RunExitCode {
  if (result.success) return RUN_EXIT_CODES.success;
  switch (result.reason) {
    case "aborted":
    case "shutdown":
      return RUN_EXIT_CODES.userStop;
    case "max_turns":
      return RUN_EXIT_CODES.maxTurns;
    case "retries_exhausted":
    case "no_targets":
      return lastErrorKind !== undefined && ACCOUNT_ERROR_KINDS.has(lastErrorKind)
        ? RUN_EXIT_CODES.authOrQuota
        : RUN_EXIT_CODES.failure;
    default:
      return RUN_EXIT_CODES.failure;
  }
}

/** The part of a failover record the exit code needs. */
const failoverKindSchema = failoverRecordSchema.pick({ kind: true });

/** The entries of a session this module reads: custom entries with their data. */
interface EntryLike {
  type: string;
  customType?: string;
  data?: unknown;
}

/**
 * The error kind of the last failed model attempt stored on the branch (an
 * `arbor.failover` entry), or undefined when the branch has none.
 */
export function lastFailoverKind(branch: readonly EntryLike[]): string | undefined {
  for (let index = branch.length - 1; index >= 0; index--) {
    const entry = branch[index];
    if (!isArborEntry(entry, FAILOVER_CUSTOM_TYPE)) continue;
    // Only the kind matters here: read it alone, so a record with a damaged usage still says it.
    const read = failoverKindSchema.safeParse(entry?.data);
    return read.success ? read.data.kind : undefined;
  }
  return undefined;
}
