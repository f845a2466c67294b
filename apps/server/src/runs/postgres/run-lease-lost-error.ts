import { ArborError, arborErrorGuard } from "@arbor/session-store";

/**
 * An instance tried to write for a run it no longer holds: its lease expired (it stalled or
 * lost the database) and the run was marked interrupted, or another generation took it.
 * Nothing is written; the instance stops the run.
 */
export class RunLeaseLostError extends ArborError {
  override readonly name = "RunLeaseLostError";
  declare readonly code: "run_lease_lost";
  constructor(
    readonly runId: string,
    readonly generation: number,
  ) {
    super(
      "run_lease_lost",
      `run "${runId}": this instance no longer holds generation ${generation} of the run (its lease expired); nothing more is written for it`,
    );
  }

  /** Tells whether a value is a RunLeaseLostError, even one from another copy of this package. */
  static override readonly isInstance = arborErrorGuard<RunLeaseLostError>(
    "@arbor/server:RunLeaseLostError",
  );
}
