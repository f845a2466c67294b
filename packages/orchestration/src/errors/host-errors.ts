import { arborErrorGuard } from "@arbor/session-store";
import { OrchestrationError } from "./orchestration-error.js";

/** What was handed to `AgentHost.open` (or a later call) cannot work. */
export class InvalidHostOptionsError extends OrchestrationError {
  /**
   * @param option - the option at fault (`sessionId`, `definition.tools[2]`, …)
   * @param reason - what was wrong and what to do
   */
  constructor(
    readonly option: string,
    readonly reason: string,
  ) {
    super("invalid_host_options", `${option}: ${reason}`);
    this.name = "InvalidHostOptionsError";
  }

  /** True for an {@link InvalidHostOptionsError} from any copy of this package. */
  static override readonly isInstance = arborErrorGuard<InvalidHostOptionsError>(
    "@arbor/orchestration:InvalidHostOptionsError",
  );
}
