import { arborErrorGuard } from "@arbor/session-store";
import { OrchestrationError } from "./orchestration-error.js";

/** Why a child run was not started. */
export type ChildRunRefusal = "depth_limit" | "cycle" | "stopped" | "aborted";

/**
 * A child run (advisor, destination, handoff or sub-agent) was not started: the depth limit
 * is reached, the agent is already among its ancestors (a cycle), or the run was stopped or
 * aborted. A sub-agent call gets this as its error result; an advisor as its failure block.
 */
export class ChildRunRefusedError extends OrchestrationError {
  /**
   * @param refusal - why it was not started
   * @param agentPath - the agent path it would have had
   * @param detail - what was wrong, in words
   */
  constructor(
    readonly refusal: ChildRunRefusal,
    readonly agentPath: string,
    detail: string,
  ) {
    super("child_run_refused", `${agentPath} was not started: ${detail}`);
    this.name = "ChildRunRefusedError";
  }

  /** True for a {@link ChildRunRefusedError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<ChildRunRefusedError>(
    "@arbor/orchestration:ChildRunRefusedError",
  );
}
